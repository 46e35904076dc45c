"""satsweep: reproducible, distributed parameter-sweep campaigns for network simulation studies."""

__version__ = "0.1.0"
