"""How ``dpcert.composition`` is known to the rest of dpcert (:class:`~dpcert.core.packages.PackageDeclaration`)."""

from dpcert.core.packages import PackageDeclaration

DECLARATION = PackageDeclaration(
    package=__package__,
    rank=10,
    prefixes={"composition": "composition", "rdp": "rdp"},
    manifests=("composition.toml",),
    docs="topics/composition",
    quantities=("basic", "general", "kov", "mv", "rdp"),
    claims=("identities", "kov", "mv", "claims"),
)
