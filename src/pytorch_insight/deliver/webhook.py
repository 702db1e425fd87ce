"""A generic webhook: the report's JSON document, POSTed as it is. With a secret, the header
`X-Insight-Signature-256: sha256=<hex HMAC-SHA256(secret, body)>` lets the receiver check it came
from us, unchanged (the scheme GitHub uses for its own webhooks). Any 2xx answer is success."""

from __future__ import annotations

import hashlib
import hmac

from pytorch_insight.deliver.job import DeliveryError, Job
from pytorch_insight.deliver.post import answer_text, host_of, post

SIGNATURE_HEADER = "X-Insight-Signature-256"


def signature(body: bytes, secret: str) -> str:
    return "sha256=" + hmac.new(secret.encode(), body, hashlib.sha256).hexdigest()


def send(job: Job) -> str:
    body = job.report.model_dump_json().encode()
    headers = {SIGNATURE_HEADER: signature(body, job.credentials.secret)} if job.credentials.secret else {}
    response = post(job.url, body, job.http, headers=headers, clock=job.clock)
    if not 200 <= response.status_code < 300:
        answer = answer_text(response)
        raise DeliveryError(f"{host_of(job.url)} answered {response.status_code}: {answer or 'no text'}")
    return f"{len(body)} bytes"
