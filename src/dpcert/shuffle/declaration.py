"""How ``dpcert.shuffle`` is known to the rest of dpcert (:class:`~dpcert.core.packages.PackageDeclaration`)."""

from dpcert.core.packages import PackageDeclaration

DECLARATION = PackageDeclaration(
    package=__package__,
    rank=40,
    prefixes={"shuffle": "shuffle"},
    manifests=("shuffle.toml", "shuffle_figures.toml"),
    docs="topics/shuffle",
    quantities=("quantities", "figure_claims"),
    claims=("claims", "figure_claims"),
)
