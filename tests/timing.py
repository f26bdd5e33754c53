"""How long a test may wait for what takes well under a second, or a few seconds, on an idle machine.

Tests assert order and outcome. Where one must bound a wall-clock wait (an engine killed after its grace, a
``stop`` answered, a dropped stream reopened), it allows :data:`PATIENCE_S`: long enough for a machine whose
cores are all busy with other work, and far shorter than the hang or the unlimited search the bound rules out.
Waiting for programs to start (a Python process importing the bot or pyffish, several of them one after the
other) allows :data:`STARTUP_S`.
"""

PATIENCE_S = 10.0
#: a few Python processes started one after another: about 2 s idle, 10 s measured beside two CPU burners
#: and five other test processes
STARTUP_S = 60.0
