from __future__ import annotations

import json
import subprocess
import sys

import pytest

from structcrawl.commandline import main
from structcrawl.dev.devserver import BackgroundServer

PAGE = (
    '<html><head><meta property="og:title" content="T">'
    '<script type="application/ld+json">{"@type": "Product", "@id": "p", "name": "P"}</script>'
    "</head><body></body></html>"
)


def test_extract_file_as_json_list(tmp_path, capsys):
    f = tmp_path / "p.html"
    f.write_text(PAGE)
    assert main(["extract", str(f), "--base-url", "https://s.example/x/"]) == 0
    records = json.loads(capsys.readouterr().out)
    assert [r["format"] for r in records] == ["json-ld", "opengraph"]  # OG is not repeated as RDFa
    assert records[0]["id"] == "https://s.example/x/p"


def test_extract_jsonl_and_syntax_selection(tmp_path, capsys):
    f = tmp_path / "p.html"
    f.write_text(PAGE)
    assert main(["extract", str(f), "--format", "jsonl", "--syntaxes", "opengraph"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert [json.loads(x)["format"] for x in lines] == ["opengraph"]


def test_unreadable_input_exits_non_zero_with_a_message(tmp_path, capsys):
    assert main(["extract", str(tmp_path / "missing.html")]) == 2
    assert "cannot read" in capsys.readouterr().err
    assert main(["extract", str(tmp_path), "--syntaxes", "nope"]) == 2
    assert "unknown syntaxes" in capsys.readouterr().err
    assert main(["extract", "ftp://x.example/a"]) == 2


def test_extract_url_from_local_server(tmp_path):
    (tmp_path / "p.html").write_text(PAGE)
    with BackgroundServer(tmp_path) as server:
        out = subprocess.run(
            [sys.executable, "-m", "structcrawl.commandline", "extract", server.url + "p.html"],
            capture_output=True,
            text=True,
            timeout=60,
            check=True,
        ).stdout
    records = json.loads(out)
    assert records[0]["source_url"] == server.url + "p.html"


@pytest.mark.parametrize("flag", ["--version", "--help"])
def test_help_and_version(flag, capsys):
    with pytest.raises(SystemExit) as exc:
        main([flag])
    assert exc.value.code == 0


def test_extract_url_reads_a_gzipped_answer_it_did_not_ask_for(capsys):
    import gzip
    import threading
    from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

    class Gzipping(BaseHTTPRequestHandler):  # ignores Accept-Encoding: identity
        def do_GET(self):
            body = gzip.compress(PAGE.encode())
            self.send_response(200)
            self.send_header("Content-Type", "text/html")
            self.send_header("Content-Encoding", "gzip")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *args):
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Gzipping)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        assert main(["extract", f"http://127.0.0.1:{server.server_address[1]}/p.html"]) == 0
    finally:
        server.shutdown()
        server.server_close()
    records = json.loads(capsys.readouterr().out)
    assert [r["format"] for r in records] == ["json-ld", "opengraph"]
