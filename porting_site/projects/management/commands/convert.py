from ._engine import EngineCommand


class Command(EngineCommand):
    help = "See: python -m analysis.cli.convert --help"
    engine_module = "analysis.cli.convert"
