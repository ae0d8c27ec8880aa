"""How ``dpcert.gaussian`` is known to the rest of dpcert (:class:`~dpcert.core.packages.PackageDeclaration`)."""

from dpcert.core.packages import PackageDeclaration

DECLARATION = PackageDeclaration(
    package=__package__,
    rank=60,
    prefixes={"gaussian": "gaussian", "sgm": "gaussian", "dpsgd": "gaussian", "rdp": "rdp"},
    manifests=("gaussian.toml",),
    docs="topics/gaussian",
    quantities=("mechanism", "composed", "sgm", "conversion", "dpsgd_rdp", "pld"),
    claims=("claims",),
)
