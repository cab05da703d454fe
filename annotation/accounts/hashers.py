"""The hash of a password this site generated for an account a researcher created.

Django's default hasher (PBKDF2, 1,000,000 iterations, about half a second here) stretches the key
so that a guessable password people chose is slow to guess from a stolen hash. A generated password
is 14 characters drawn from 56 (``joining.generate_password``: about 81 random bits), which no
stretching needs to protect; hashed with the default, creating 300 accounts at once took minutes and
ended in the web server's timeout. These get 10,000 iterations, and Django re-hashes them with the
default at their first login (the algorithm is not the preferred one), as it does any outdated hash.
"""

from __future__ import annotations

from django.contrib.auth.hashers import PBKDF2PasswordHasher


class GeneratedPasswordHasher(PBKDF2PasswordHasher):
    algorithm = "pbkdf2_sha256_generated"
    iterations = 10_000
