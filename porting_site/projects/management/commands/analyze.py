from ._engine import EngineCommand


class Command(EngineCommand):
    help = "See: python -m analysis.cli.analyze --help"
    engine_module = "analysis.cli.analyze"
