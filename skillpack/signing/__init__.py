"""Signing and verification of bundles (sigstore keyless, or a local key).

A signature (``BUNDLE.sigstore.json``) is a Sigstore bundle v0.3 around a DSSE
envelope over an in-toto statement about the archive (:mod:`.statement`). Modules:

- :mod:`.sign` -- ``sign_bundle(archive, SigningOptions)``
- :mod:`.verify` -- ``verify_signed_bundle(archive, SignaturePolicy)``, ``require_signature``
- :mod:`.keyless` / :mod:`.keys` -- the two signature kinds
- :mod:`.policy` / :mod:`.options` -- the option values and their CLI declarations
- :mod:`.errors` -- the SIG0xx codes

Nothing here imports sigstore until a signature is made or checked, so importing
this package (as ``serve`` does) stays cheap.
"""
