"""How ``dpcert.laplace`` is known to the rest of dpcert (:class:`~dpcert.core.packages.PackageDeclaration`)."""

from dpcert.core.packages import PackageDeclaration

DECLARATION = PackageDeclaration(
    package=__package__,
    rank=65,
    prefixes={"laplace": "laplace"},
    manifests=("laplace.toml",),
    docs="topics/laplace",
    quantities=("pld",),
    claims=("claims",),
)
