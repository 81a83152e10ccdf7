"""No parser resolves entities or touches the network: XXE pages and TMX files stay inert."""

from __future__ import annotations

import http.server
import threading
from pathlib import Path

from services.export.tmx import read_tmx
from services.html.parse import page_text, parse_html
from shared.errors import InvalidInput


def secret_file(tmp_path: Path) -> Path:
    path = tmp_path / "secret.txt"
    path.write_text("TOP-SECRET-CONTENT", encoding="utf-8")
    return path


def test_an_external_entity_in_html_is_not_resolved(tmp_path: Path) -> None:
    secret = secret_file(tmp_path)
    page = (
        f'<?xml version="1.0"?><!DOCTYPE html [<!ENTITY xxe SYSTEM "file://{secret}">'
        '<!ENTITY inner "INTERNAL-ENTITY-TEXT">]>'
        "<html><body><p>before &xxe; &inner; after</p></body></html>"
    )
    try:
        tree = parse_html(page)
    except InvalidInput:
        return
    text = " ".join(page_text(tree))
    assert "TOP-SECRET-CONTENT" not in text and "INTERNAL-ENTITY-TEXT" not in text
    assert "before" in text


def test_a_network_entity_in_html_is_not_fetched() -> None:
    # A real server that records every request: the entity's URL must never be asked for.
    requested: list[str] = []

    class Recorder(http.server.BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            requested.append(self.path)
            self.send_response(200)
            self.end_headers()
            self.wfile.write(b"FETCHED")

        def log_message(self, *args: object) -> None:
            pass

    server = http.server.HTTPServer(("127.0.0.1", 0), Recorder)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        url = f"http://127.0.0.1:{server.server_port}/x"
        page = f'<!DOCTYPE html [<!ENTITY net SYSTEM "{url}">]><p>a &net; b</p>'
        text = " ".join(page_text(parse_html(page)))
    finally:
        server.shutdown()
        server.server_close()
    assert requested == [] and "FETCHED" not in text and "a" in text


def test_tmx_with_external_entity_is_not_resolved(tmp_path: Path) -> None:
    secret = secret_file(tmp_path)
    tmx = tmp_path / "hostile.tmx"
    tmx.write_text(
        f'<?xml version="1.0"?><!DOCTYPE tmx [<!ENTITY xxe SYSTEM "file://{secret}">]>'
        '<tmx version="1.4"><header/><body><tu>'
        '<tuv xml:lang="en"><seg>a &xxe; b</seg></tuv><tuv xml:lang="fr"><seg>c</seg></tuv>'
        "</tu></body></tmx>",
        encoding="utf-8",
    )
    units = read_tmx(tmx)
    assert all("TOP-SECRET-CONTENT" not in unit["src"] for unit in units)
