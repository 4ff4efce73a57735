from ._engine import EngineCommand


class Command(EngineCommand):
    help = "See: python -m analysis.cli.rules --help"
    engine_module = "analysis.cli.rules"
