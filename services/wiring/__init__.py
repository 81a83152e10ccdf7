"""The stages wired into the application, for the command line, the gateway and the workers:
``registry`` (which handler serves a stage, which stages keep tables) and ``dispatch`` (where
ingested work goes: the first Redis queue when configured, else in-process; dead letters
sent back). Like ``services.cli`` and ``services.gateway`` it sits above the stages."""
