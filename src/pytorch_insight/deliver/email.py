"""E-mail over SMTP: one multipart/alternative message, the Markdown report as text/plain and the
self-contained HTML report as text/html, to the target's addresses. STARTTLS or SSL with the
system's CA store (plus the target's `ca_file`, for a private mail server); certificates are
always verified, and a login is never sent over an unencrypted connection."""

from __future__ import annotations

import smtplib
import ssl
from email.message import EmailMessage
from email.utils import formatdate, make_msgid

from pytorch_insight.deliver.job import DeliveryError, Job, joined
from pytorch_insight.deliver.message import Digest
from pytorch_insight.report.render import render_html, render_markdown

DEFAULT_PORT = {"starttls": 587, "ssl": 465, "none": 25}


def subject(digest: Digest) -> str:
    return f"{digest.title} {digest.window} · {digest.word('high', count=digest.high)}"


def message(job: Job, *, whole: bool = True) -> EmailMessage:
    """The report as mail; without `whole`, only the digest's text and the link (a server whose size
    limit the full report exceeds)."""
    digest, target = job.digest, job.target
    mail = EmailMessage()
    mail["Subject"] = subject(digest)
    mail["From"] = target.sender
    mail["To"] = ", ".join(target.to)
    mail["Date"] = formatdate(job.clock.now(), usegmt=True)
    mail["Message-ID"] = make_msgid(domain=(target.sender or "").rpartition("@")[2] or None)
    if whole:
        mail.set_content(render_markdown(job.report))
        mail.add_alternative(render_html(job.report), subtype="html")
    else:
        lines = [f"- {e.label} {e.ref} {e.title}" + (f" {e.url}" if e.url else "") for e in digest.entries]
        mail.set_content(joined((digest.totals, digest.overview_text, "\n".join(lines), digest.link or "")) + "\n")
    return mail


def send(job: Job) -> str:
    target, creds = job.target, job.credentials
    if creds.username and target.security == "none":
        raise DeliveryError("refusing to send the SMTP login over an unencrypted connection: use starttls or ssl")
    host, port = target.host or "", target.port or DEFAULT_PORT[target.security]
    try:
        context = ssl.create_default_context(cafile=str(target.ca_file) if target.ca_file else None)
    except (OSError, ssl.SSLError) as exc:
        raise DeliveryError(f"cannot read ca_file {target.ca_file}: {getattr(exc, 'strerror', None) or exc}") from None
    try:
        if target.security == "ssl":
            smtp: smtplib.SMTP = smtplib.SMTP_SSL(host, port, timeout=target.timeout, context=context)
        else:
            smtp = smtplib.SMTP(host, port, timeout=target.timeout)
        with smtp:
            smtp.ehlo()
            if target.security == "starttls":
                smtp.starttls(context=context)
                smtp.ehlo()
            if creds.username:
                smtp.login(creds.username, creds.password or "")
            mail = message(job)
            limit = int(smtp.esmtp_features.get("size", "0") or 0)  # the server's SIZE, 0: none announced
            if limit and len(mail.as_bytes()) > limit:
                mail = message(job, whole=False)
                if len(mail.as_bytes()) > limit:
                    raise DeliveryError(f"{host} accepts messages up to {limit} bytes; even the short one is larger")
            refused = smtp.send_message(mail)
    except smtplib.SMTPAuthenticationError as exc:
        raise DeliveryError(f"{host} rejected the SMTP login ({exc.smtp_code})") from None
    except smtplib.SMTPRecipientsRefused as exc:
        raise DeliveryError(f"{host} refused every recipient: {_refusals(exc.recipients)}") from None
    except smtplib.SMTPResponseException as exc:
        raise DeliveryError(f"{host} answered {exc.smtp_code}: {_text(exc.smtp_error)}") from None
    except smtplib.SMTPNotSupportedError:
        raise DeliveryError(f'{host} does not offer STARTTLS: use security = "ssl", or a server that does') from None
    except ssl.SSLCertVerificationError as exc:
        # Said in the project's words (OpenSSL's own reason follows): what to fix is the trust.
        why = exc.verify_message or exc.reason or "unverified"
        raise DeliveryError(
            f"TLS with {host}:{port} failed: the server's certificate is not trusted ({why}); "
            "set ca_file to the CA that signed it"
        ) from None
    except ssl.SSLError as exc:
        raise DeliveryError(f"TLS with {host}:{port} failed: {exc.reason or exc}") from None
    except (smtplib.SMTPException, OSError) as exc:
        raise DeliveryError(f"cannot send mail through {host}:{port}: {exc}") from None
    if refused:
        # The others have it: the delivery stands (a re-run would send them a second copy), but the
        # refused addresses are reported as a failure.
        raise PartialDelivery(f"{host} refused {_refusals(refused)}; the other recipients have it")
    return f"{len(target.to)} recipient" + ("s" if len(target.to) != 1 else "")


class PartialDelivery(DeliveryError):
    """Some recipients have the message, some were refused."""


def _refusals(recipients: dict[str, tuple[int, bytes]]) -> str:
    return ", ".join(f"{address} ({code} {_text(reason)})" for address, (code, reason) in recipients.items())


def _text(reply: bytes | str) -> str:
    text = reply.decode("utf-8", "replace") if isinstance(reply, bytes) else reply
    return " ".join(text.split())[:200]
