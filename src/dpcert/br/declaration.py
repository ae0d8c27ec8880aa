"""How ``dpcert.br`` is known to the rest of dpcert (:class:`~dpcert.core.packages.PackageDeclaration`)."""

from dpcert.core.packages import PackageDeclaration

DECLARATION = PackageDeclaration(
    package=__package__,
    rank=50,
    prefixes={"br": "br"},
    manifests=("br.toml", "br_adaptive.toml"),
    docs="topics/br",
    quantities=("nonadaptive", "bounds", "adaptive"),
    claims=("claims", "adaptive_claims"),
)
