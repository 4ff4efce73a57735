from ._engine import EngineCommand


class Command(EngineCommand):
    help = "See: python -m analysis.cli.parity --help"
    engine_module = "analysis.cli.parity"
