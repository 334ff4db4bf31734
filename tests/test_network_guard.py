import socket

import pytest

from tests.conftest import NetworkAccessError


def test_connecting_off_loopback_fails() -> None:
    with pytest.raises(NetworkAccessError), socket.socket() as sock:
        sock.connect(("93.184.216.34", 443))


def test_resolving_a_public_name_fails() -> None:
    with pytest.raises(NetworkAccessError):
        socket.getaddrinfo("api.openai.com", 443)


def test_loopback_is_allowed() -> None:
    with socket.socket() as server:
        server.bind(("127.0.0.1", 0))
        server.listen(1)
        with socket.create_connection(server.getsockname(), timeout=2):
            pass
