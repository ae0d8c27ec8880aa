"""How ``dpcert.darrm`` is known to the rest of dpcert (:class:`~dpcert.core.packages.PackageDeclaration`)."""

from dpcert.core.packages import PackageDeclaration

DECLARATION = PackageDeclaration(
    package=__package__,
    rank=20,
    prefixes={"darrm": "darrm"},
    manifests=("darrm.toml", "darrm_privacy.toml", "darrm_optimize.toml"),
    docs="topics/darrm",
    quantities=("accounting", "gnmax", "privacy_quantities", "utility"),
    claims=("claims", "privacy_claim_list", "optimize_claims"),
)
