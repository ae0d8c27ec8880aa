"""How ``dpcert.accounting`` is known to the rest of dpcert (:class:`~dpcert.core.packages.PackageDeclaration`)."""

from dpcert.core.packages import PackageDeclaration

DECLARATION = PackageDeclaration(
    package=__package__,
    rank=68,
    prefixes={"accounting": "accounting"},
    manifests=("accounting.toml",),
    docs="topics/accounting",
    quantities=("quantities",),
    claims=("claims",),
)
