"""How long a test may wait for what takes well under a second on an idle machine.

Tests assert order and outcome. Where one must bound a wall-clock wait (an engine killed after its grace, a
``stop`` answered, a dropped stream reopened), it allows :data:`PATIENCE_S`: long enough for a machine whose
cores are all busy with other work, and far shorter than the hang or the unlimited search the bound rules out.
"""

PATIENCE_S = 10.0
