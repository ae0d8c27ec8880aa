"""How ``dpcert.sml`` is known to the rest of dpcert (:class:`~dpcert.core.packages.PackageDeclaration`)."""

from dpcert.core.packages import PackageDeclaration

DECLARATION = PackageDeclaration(
    package=__package__,
    rank=30,
    prefixes={"sml": "sml"},
    manifests=("sml.toml",),
    docs="topics/sml",
    quantities=("quantities",),
    claims=("claims",),
)
