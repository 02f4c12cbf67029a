"""What a verifier requires of a signature (:class:`SignaturePolicy`) and what a signer
uses (:class:`SigningOptions`). Plain values: the CLI, ``serve --require-signature`` and
library callers build them; sigstore is imported only when a policy is applied."""

from __future__ import annotations

from dataclasses import dataclass, fields
from pathlib import Path
from typing import TYPE_CHECKING

from skillpack.signing.errors import unusable

if TYPE_CHECKING:
    from sigstore.verify.policy import VerificationPolicy

GITHUB_ISSUER = "https://token.actions.githubusercontent.com"
SIGNATURE_SUFFIX = ".sigstore.json"


def default_signature_path(bundle: Path) -> Path:
    """``BUNDLE.sigstore.json`` beside the bundle."""
    return bundle.with_name(bundle.name + SIGNATURE_SUFFIX)


@dataclass(frozen=True)
class SignaturePolicy:
    """Who must have signed a bundle, and which trust root vouches for them.

    Key mode: ``key`` (a public key file). Keyless: ``cert_identity`` and
    ``cert_oidc_issuer`` as for ``sigstore verify identity``, and/or the GitHub
    workflow fields as for ``sigstore verify github`` (which imply the GitHub Actions
    issuer when ``cert_oidc_issuer`` is not given). Keyless verification is offline
    against sigstore's bundled production root unless ``trust_config`` (a pinned
    ClientTrustConfig), ``staging`` or ``online`` (refresh through TUF) say otherwise.
    """

    key: Path | None = None
    cert_identity: str | None = None
    cert_oidc_issuer: str | None = None
    repository: str | None = None
    workflow_ref: str | None = None
    workflow_name: str | None = None
    workflow_trigger: str | None = None
    workflow_sha: str | None = None
    trust_config: Path | None = None
    staging: bool = False
    online: bool = False
    signature: Path | None = None

    @property
    def requested(self) -> bool:
        """True when any option asks for a signature check."""
        return any(
            getattr(self, f.name) not in (None, False)
            for f in fields(self)
            if f.name != "signature"
        )

    @property
    def has_signer(self) -> bool:
        """True when the options say who signs (a key, an identity, a repository), not
        only how to check (``--trust-config``, ``--staging``, ``--online``)."""
        return bool(self.key or self.cert_identity or self.repository)

    @property
    def key_mode(self) -> bool:
        return self.key is not None

    def _github(self) -> dict[str, str]:
        pairs = {
            "repository": self.repository,
            "workflow_ref": self.workflow_ref,
            "workflow_name": self.workflow_name,
            "workflow_trigger": self.workflow_trigger,
            "workflow_sha": self.workflow_sha,
        }
        return {k: v for k, v in pairs.items() if v}

    @property
    def issuer(self) -> str | None:
        return self.cert_oidc_issuer or (GITHUB_ISSUER if self._github() else None)

    def validate(self) -> SignaturePolicy:
        """Raise SIG020 unless the options make one coherent policy."""
        keyless = [
            f"--{f.name.replace('_', '-')}"
            for f in fields(self)
            if f.name not in ("key", "signature") and getattr(self, f.name) not in (None, False)
        ]
        if self.key_mode:
            if keyless:
                raise unusable(
                    "SIG020",
                    f"--key checks a key-mode signature; {', '.join(keyless)} "
                    "apply to keyless signatures only",
                )
            return self
        if not (self.cert_identity or self.repository):
            raise unusable(
                "SIG020",
                "no signer to check the signature against",
                hint="pass --cert-identity ID --cert-oidc-issuer URL (or --repository "
                "OWNER/REPO for GitHub Actions), or --key PUBLIC_KEY",
            )
        if self.issuer is None:
            raise unusable(
                "SIG020",
                "--cert-identity needs --cert-oidc-issuer URL",
                hint=f"for GitHub Actions the issuer is {GITHUB_ISSUER}",
            )
        if self.trust_config and (self.staging or self.online):
            raise unusable(
                "SIG020",
                "--trust-config pins the trusted root; it cannot be combined with "
                "--staging or --online",
            )
        return self

    def describe(self) -> str:
        if self.key is not None:
            return f"key {self.key}"
        parts = [f"identity {self.cert_identity}"] if self.cert_identity else []
        parts.append(f"issuer {self.issuer}")
        parts += [f"{k.replace('_', ' ')} {v}" for k, v in self._github().items()]
        return ", ".join(parts)

    def sigstore_policy(self) -> VerificationPolicy:
        """The sigstore-python policy for a keyless check (call :meth:`validate` first)."""
        from sigstore.verify import policy

        issuer = self.issuer
        assert issuer is not None, "validate() the policy first"
        checks: list[VerificationPolicy] = [
            policy.Identity(identity=self.cert_identity, issuer=issuer)
            if self.cert_identity
            else policy.OIDCIssuer(issuer)
        ]
        github = self._github()
        kinds = {
            "repository": policy.GitHubWorkflowRepository,
            "workflow_ref": policy.GitHubWorkflowRef,
            "workflow_name": policy.GitHubWorkflowName,
            "workflow_trigger": policy.GitHubWorkflowTrigger,
            "workflow_sha": policy.GitHubWorkflowSHA,
        }
        checks += [kinds[name](value) for name, value in github.items()]
        return policy.AllOf(checks)


@dataclass(frozen=True)
class SigningOptions:
    """How to sign: with a key file, or keylessly (explicit token, ambient CI credential
    or the interactive browser flow) against production, staging or a private instance."""

    key: Path | None = None
    identity_token: str | None = None
    trust_config: Path | None = None
    staging: bool = False
    output: Path | None = None
    interactive: bool = True

    @property
    def requested(self) -> bool:
        """True when an option that only makes sense for signing was given (not the
        identity token, which may come from the environment)."""
        return self.key is not None or self.trust_config is not None or self.staging

    def validate(self) -> SigningOptions:
        if self.key is not None and (self.identity_token or self.trust_config or self.staging):
            raise unusable(
                "SIG020",
                "--key signs with a local key; --identity-token, --trust-config and "
                "--staging are for keyless signing",
            )
        if self.trust_config and self.staging:
            raise unusable("SIG020", "--trust-config and --staging cannot be combined")
        return self
