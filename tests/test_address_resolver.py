"""The address policy where Scrapy's HTTP handler connects (structcrawl.render.addresses
.PolicyResolver): each answer of the name resolver is checked whole before any address of it
is handed to the endpoint, so a mixed answer hands over nothing and a name that rebinds to an
internal address between two connections is refused on the second. The wrapped resolver is a
test resolver answering what each case says (Twisted's ``IHostnameResolver`` interface)."""

from __future__ import annotations

from typing import Any

from twisted.internet.address import IPv4Address, IPv6Address

from structcrawl.core.addresses import AddressPolicy
from structcrawl.render.addresses import PolicyResolver


class _Answers:
    """A name resolver answering ``answers[host]`` in turn, one list per resolution."""

    def __init__(self, answers: dict[str, list[list[str]]]):
        self.answers = {host: list(seq) for host, seq in answers.items()}

    def resolveHostName(self, receiver, hostName, portNumber=0, *args: Any) -> Any:  # noqa: N802, N803
        receiver.resolutionBegan(None)
        for address in self.answers[hostName].pop(0):
            kind = IPv6Address if ":" in address else IPv4Address
            receiver.addressResolved(kind("TCP", address, portNumber))
        receiver.resolutionComplete()
        return receiver


class _Receiver:
    def __init__(self) -> None:
        self.addresses: list[str] = []
        self.complete = False

    def resolutionBegan(self, resolution: Any) -> None:  # noqa: N802
        pass

    def addressResolved(self, address: Any) -> None:  # noqa: N802
        self.addresses.append(address.host)

    def resolutionComplete(self) -> None:  # noqa: N802
        self.complete = True


def _resolve(resolver: PolicyResolver, host: str, port: int) -> _Receiver:
    receiver = _Receiver()
    resolver.resolveHostName(receiver, host, port)
    assert receiver.complete  # the endpoint always hears the end of the answer
    return receiver


def _resolver(answers: dict[str, list[list[str]]], policy: AddressPolicy) -> PolicyResolver:
    resolver = PolicyResolver(_Answers(answers))
    resolver.policies.add(policy)
    return resolver


def test_a_mixed_answer_hands_over_no_address():
    policy = AddressPolicy()
    resolver = _resolver({"mixed.example": [["93.184.216.34", "127.0.0.1"]]}, policy)
    assert _resolve(resolver, "mixed.example", 80).addresses == []
    refusal = resolver.refusal_for("http://mixed.example/")
    assert (refusal.address, refusal.rule) == ("127.0.0.1", "loopback")


def test_a_name_that_rebinds_is_refused_on_the_connection_that_would_reach_inside():
    policy = AddressPolicy()
    answers = {"rebind.example": [["93.184.216.34"], ["169.254.169.254"], ["::ffff:10.0.0.1"]]}
    resolver = _resolver(answers, policy)
    assert _resolve(resolver, "rebind.example", 80).addresses == ["93.184.216.34"]
    assert resolver.refusal_for("http://rebind.example/") is None
    assert _resolve(resolver, "rebind.example", 80).addresses == []  # the metadata endpoint
    assert resolver.refusal_for("http://rebind.example/").rule == "link-local"
    assert _resolve(resolver, "rebind.example", 80).addresses == []  # IPv4-mapped, private
    assert resolver.refusal_for("http://rebind.example/").rule == "private"


def test_endpoints_the_operator_named_or_allowed_resolve_unchanged():
    policy = AddressPolicy(allow=("intranet.example:8080",))
    policy.name("http://127.0.0.1:8765/")
    answers = {"127.0.0.1": [["127.0.0.1"], ["127.0.0.1"]], "intranet.example": [["10.1.2.3"]]}
    resolver = _resolver(answers, policy)
    assert _resolve(resolver, "127.0.0.1", 8765).addresses == ["127.0.0.1"]
    assert _resolve(resolver, "intranet.example", 8080).addresses == ["10.1.2.3"]
    assert _resolve(resolver, "127.0.0.1", 9000).addresses == []  # the same host, another port
    assert resolver.refusal_for("http://127.0.0.1:9000/").rule == "loopback"
