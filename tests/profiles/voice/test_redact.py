"""Secret redaction and <private> spans (profiles.voice.redact), over generated keys."""

from __future__ import annotations

import string

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from profiles.voice.redact import entropy, redact, redact_secrets, strip_private

UPPER_DIGITS = string.ascii_uppercase + string.digits
ALNUM = string.ascii_letters + string.digits
URLSAFE = ALNUM + "_-"
B64 = ALNUM + "/+"


def body(alphabet: str, n: int, m: int | None = None) -> st.SearchStrategy[str]:
    return st.text(alphabet=alphabet, min_size=n, max_size=m if m is not None else n)


def high_entropy(alphabet: str, n: int) -> st.SearchStrategy[str]:
    return body(alphabet, n).filter(lambda s: entropy(s) >= 3.2 and any(c.isdigit() for c in s))


# kind -> strategy producing a text that holds exactly one secret of that kind
KEYS: dict[str, st.SearchStrategy[str]] = {
    "aws-access-key": st.builds(
        lambda p, b: p + b, st.sampled_from(["AKIA", "ASIA"]), body(UPPER_DIGITS, 16)
    ),
    "aws-secret-key": st.builds(lambda b: f"aws_secret_access_key = {b}", high_entropy(B64, 40)),
    "github-token": st.one_of(
        st.builds(
            lambda p, b: f"{p}_{b}",
            st.sampled_from(["ghp", "gho", "ghs", "ghu", "ghr"]),
            body(ALNUM, 36, 40),
        ),
        st.builds(lambda b: f"github_pat_{b}", body(ALNUM + "_", 22, 82)),
    ),
    "openai-key": st.builds(
        lambda p, b: p + b, st.sampled_from(["sk-", "sk-proj-"]), body(ALNUM, 20, 64)
    ).filter(lambda s: not s.startswith("sk-ant")),
    "anthropic-key": st.builds(lambda b: f"sk-ant-api03-{b}", body(URLSAFE, 20, 95)),
    "slack-token": st.builds(
        lambda p, b: f"xox{p}-{b}", st.sampled_from("abpors"), body(ALNUM + "-", 10, 60)
    ),
    "stripe-key": st.builds(
        lambda p, b: p + b, st.sampled_from(["sk_live_", "rk_live_", "sk_test_"]), body(ALNUM, 24)
    ),
    "google-api-key": st.builds(lambda b: "AIza" + b, body(URLSAFE, 35)),
    "jwt": st.builds(
        lambda h, p, s: f"eyJ{h}.eyJ{p}.{s}",
        body(URLSAFE, 10, 30),
        body(URLSAFE, 10, 60),
        body(URLSAFE, 20, 43),
    ),
    "private-key": st.builds(
        lambda kind, lines: (
            f"-----BEGIN {kind}PRIVATE KEY-----\n"
            + "\n".join(lines)
            + f"\n-----END {kind}PRIVATE KEY-----"
        ),
        st.sampled_from(["", "RSA ", "EC ", "OPENSSH ", "ENCRYPTED "]),
        st.lists(body(B64 + "=", 64), min_size=1, max_size=5),
    ),
    "secret-assignment": st.builds(
        lambda name, sep, v: f"{name}{sep}{v}",
        st.sampled_from(["password", "PASSWORD", "api_key", "apiKey", "client_secret", "token"]),
        st.sampled_from(["=", ": ", " = ", '="']),
        high_entropy(ALNUM + "!#%&*", 16),
    ),
    "bearer-token": st.builds(lambda b: f"Authorization: Bearer {b}", high_entropy(ALNUM, 32)),
    "connection-password": st.builds(
        lambda scheme, pw: f"{scheme}://app_user:{pw}@db.internal:5432/main",
        st.sampled_from(["postgresql", "mysql", "mongodb+srv", "redis", "amqp"]),
        body(ALNUM + "!*", 6, 30),
    ),
}
PROSE = st.text(alphabet=string.ascii_lowercase + " .,", max_size=40)


@pytest.mark.parametrize("kind", sorted(KEYS))
def test_each_format_is_redacted_with_its_marker(kind: str) -> None:
    @settings(max_examples=40, deadline=None)
    @given(before=PROSE, secret=KEYS[kind], after=PROSE)
    def check(before: str, secret: str, after: str) -> None:
        text = f"{before} {secret} {after}"
        out, counts = redact(text)
        assert dict(counts) == {kind: 1}, (text, out)
        assert f"[REDACTED:{kind}]" in out
        # the secret's distinctive part never survives (a kept key name may)
        core = secret.split("=")[-1].split(":")[-1].split("Bearer ")[-1].strip(' "')
        if kind == "connection-password":
            core = secret.split(":")[2].split("@")[0]
        if kind == "private-key":
            core = secret.splitlines()[1]
        if core not in before + after:
            assert core not in out
        assert before in out and after in out
        # idempotent: redacting the redacted text changes nothing
        assert redact(out) == (out, {})

    check()


def test_no_redact_keeps_secrets_but_still_drops_private_spans() -> None:
    text = "key ghp_" + "a1B2c3D4" * 5 + " <private>my address</private> end"
    out, counts = redact(text, secrets=False)
    assert "ghp_" in out and "my address" not in out
    assert dict(counts) == {"private-span": 1}


@given(st.text(max_size=200))
@settings(max_examples=300, deadline=None)
def test_any_text_is_redacted_idempotently(text: str) -> None:
    once, _ = redact(text)
    assert redact(once)[0] == once


@pytest.mark.parametrize(
    "text",
    [
        "the asian market opened; the token budget is 2000",
        "password=changeme",  # low entropy: a placeholder, not a secret
        "api_key=${OPENAI_API_KEY}",
        "set password=<your password here>",
        "Bearer authentication is described in RFC 6750",
        "ask the skeptic; risk-averse sk-ipper",
        "https://example.com/path:with:colons@nothing",
        "see github issue #123, the ghost of gh_pages",
        "",
    ],
)
def test_ordinary_text_is_left_alone(text: str) -> None:
    assert redact_secrets(text) == (text, {})


@pytest.mark.parametrize(
    ("text", "kept", "spans"),
    [
        ("a <private>b</private> c", "a  c", 1),
        ("<PRIVATE>x\ny</Private>z", "z", 1),
        ("one <private>two</private> three <private>four", "one  three ", 2),
        ("no spans here", "no spans here", 0),
    ],
)
def test_private_spans(text: str, kept: str, spans: int) -> None:
    assert strip_private(text) == (kept, spans)


def test_key_name_kept_value_labelled_by_its_format() -> None:
    out, counts = redact("OPENAI_API_KEY=sk-proj-" + "Ab1" * 10)
    assert out == "OPENAI_API_KEY=[REDACTED:openai-key]"
    assert dict(counts) == {"openai-key": 1}
