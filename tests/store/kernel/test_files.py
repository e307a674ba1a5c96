"""Foreign files are read safely: a one-line InputError for every way a file can be bad."""

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from gatepost.store.kernel import InputError, files, markup

BOMB = """
a: &a ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]
b: &b [*a,*a,*a,*a,*a,*a,*a,*a,*a]
c: &c [*b,*b,*b,*b,*b,*b,*b,*b,*b]
d: &d [*c,*c,*c,*c,*c,*c,*c,*c,*c]
e: &e [*d,*d,*d,*d,*d,*d,*d,*d,*d]
f: &f [*e,*e,*e,*e,*e,*e,*e,*e,*e]
g: &g [*f,*f,*f,*f,*f,*f,*f,*f,*f]
"""


def _one_line_error(call) -> str:
    with pytest.raises(InputError) as err:
        call()
    message = str(err.value)
    assert "\n" not in message
    return message


def test_alias_bomb_is_refused(tmp_path):
    path = tmp_path / "bomb.yaml"
    path.write_text(BOMB)
    assert "alias" in _one_line_error(lambda: markup.load_yaml_file(path))


def test_oversized_file_is_refused_before_reading(tmp_path):
    path = tmp_path / "huge.yaml"
    with path.open("wb") as handle:
        handle.truncate(files.MAX_FILE_BYTES + 1)  # sparse: large without writing it
    message = _one_line_error(lambda: files.read_text(path, what="suite"))
    assert "larger than" in message and str(path) in message


def test_binary_and_invalid_utf8(tmp_path):
    binary = tmp_path / "a.yaml"
    binary.write_bytes(b"key: \x00\x01\x02")
    assert "binary" in _one_line_error(lambda: files.read_text(binary))
    latin = tmp_path / "b.yaml"
    latin.write_bytes("title: caf\xe9".encode("latin-1"))
    assert "byte 10 is not valid UTF-8" in _one_line_error(lambda: files.read_text(latin))


def test_missing_file_and_folder(tmp_path):
    assert "no such" in _one_line_error(lambda: files.read_text(tmp_path / "nope.yaml"))
    assert "is a folder" in _one_line_error(lambda: files.read_text(tmp_path))


def test_yaml_syntax_error_names_the_position():
    message = _one_line_error(lambda: markup.parse_yaml("a: [1, 2\nb: 3\n", source="case.yaml"))
    assert message.startswith("case.yaml: not valid YAML at line")


def test_yaml_never_builds_python_objects():
    _one_line_error(lambda: markup.parse_yaml("!!python/object/apply:os.system ['true']", source="x.yaml"))


@settings(max_examples=200, deadline=None)
@given(st.text(max_size=200))
def test_any_text_parses_or_fails_in_one_line(text):
    for parse in (markup.parse_yaml, files.parse_json):
        try:
            parse(text, source="fuzz")
        except InputError as exc:
            assert "\n" not in str(exc)
