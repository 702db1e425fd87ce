"""A local mail server (aiosmtpd) that behaves like a submission server: it offers STARTTLS with a
certificate from a test CA (trustme), refuses AUTH and MAIL before TLS, accepts one login, announces
a SIZE limit, and keeps each message it accepted for the test to parse."""

from __future__ import annotations

import logging
import socket
import ssl
from dataclasses import dataclass, field
from email import message_from_bytes, policy
from email.message import EmailMessage
from pathlib import Path
from typing import Any

import trustme
from aiosmtpd.controller import Controller
from aiosmtpd.smtp import SMTP, AuthResult, Envelope, LoginPassword, Session

# aiosmtpd warns about its own deprecated attribute whenever a login succeeds.
logging.getLogger("mail.log").setLevel(logging.ERROR)


@dataclass
class Received:
    sender: str
    recipients: list[str]
    message: EmailMessage


@dataclass
class MailStore:
    refuse: set[str] = field(default_factory=set)
    received: list[Received] = field(default_factory=list)

    async def handle_RCPT(
        self, server: SMTP, session: Session, envelope: Envelope, address: str, options: list[str]
    ) -> str:  # noqa: N802
        if address in self.refuse:
            return "550 5.1.1 mailbox unavailable"
        envelope.rcpt_tos.append(address)
        return "250 OK"

    async def handle_DATA(self, server: SMTP, session: Session, envelope: Envelope) -> str:  # noqa: N802
        content = envelope.original_content or b""
        parsed = message_from_bytes(content, policy=policy.default)
        assert isinstance(parsed, EmailMessage)
        self.received.append(Received(str(envelope.mail_from), list(envelope.rcpt_tos), parsed))
        return "250 2.0.0 queued"


class FakeSubmissionServer:
    def __init__(self, tmp: Path, username: str, password: str, size_limit: int = 10 * 1024 * 1024) -> None:
        self.ca = trustme.CA()
        self.ca_file = tmp / "test-ca.pem"
        self.ca.cert_pem.write_to_path(str(self.ca_file))
        context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
        self.ca.issue_cert("127.0.0.1", "localhost").configure_cert(context)
        self.store = MailStore()
        self.logins: list[str] = []
        self.port = _free_port()

        def authenticate(server: SMTP, session: Session, envelope: Envelope, mechanism: str, data: Any) -> AuthResult:
            ok = (
                isinstance(data, LoginPassword)
                and data.login == username.encode()
                and data.password == password.encode()
            )
            if ok:
                self.logins.append(username)
            return AuthResult(success=ok, handled=False)

        self.controller = Controller(
            self.store,
            hostname="127.0.0.1",
            port=self.port,
            server_hostname="localhost",
            tls_context=context,
            require_starttls=True,
            authenticator=authenticate,
            auth_require_tls=True,
            auth_required=True,
            data_size_limit=size_limit,
        )

    @property
    def received(self) -> list[Received]:
        return self.store.received

    def __enter__(self) -> FakeSubmissionServer:
        self.controller.start()
        return self

    def __exit__(self, *_exc: object) -> None:
        self.controller.stop()


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])
