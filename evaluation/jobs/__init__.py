"""How jobs reach a worker, or without one the embedded runner, and how lost ones are sent again."""
