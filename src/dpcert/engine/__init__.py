"""The engine above the mathematics: registry, manifests, verify runs and certificates."""
