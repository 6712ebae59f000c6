"""Contest intake's first steps (issue 28): a stranger's archive unpacked under caps, nothing
written outside its folder; a manifest checked field by field. Each hostile archive is built
here as an attacker would build it (a `../` path, an absolute one, links in and out, a device, a
zip bomb that tells the truth about its size and one whose index lies, too many files)."""

from __future__ import annotations

import io
import os
import stat
import tarfile
import zipfile
from pathlib import Path

import pytest

from referee.errors import SubmissionError
from referee.intake import manifest
from referee.intake.unpack import Caps, safe_path, unpack

BOT = b"import sys\nprint('hi')\n"


def _tar(path: Path, members: list[tuple[tarfile.TarInfo, bytes | None]], mode: str = "w:gz") -> Path:
    with tarfile.open(path, mode) as tar:
        for info, data in members:
            if data is not None:
                info.size = len(data)
            tar.addfile(info, io.BytesIO(data) if data is not None else None)
    return path


def _file(name: str, mode: int = 0o644) -> tarfile.TarInfo:
    info = tarfile.TarInfo(name)
    info.mode = mode
    return info


def _link(name: str, target: str, kind: bytes = tarfile.SYMTYPE) -> tarfile.TarInfo:
    info = tarfile.TarInfo(name)
    info.type = kind
    info.linkname = target
    return info


def _listing(root: Path) -> set[str]:
    return {str(p.relative_to(root)) for p in root.rglob("*")}


@pytest.fixture
def place(tmp_path: Path) -> Path:
    """A folder holding the archives and the targets: whatever lands beside them is a leak."""
    (tmp_path / "in").mkdir()
    return tmp_path


def test_a_plain_tar_gz_unpacks_with_its_modes(place: Path):
    archive = _tar(place / "in" / "bot.tar.gz", [
        (_file("bot.toml"), b'name = "a"\nauthor = "b"\nrun = "python3 bot.py"\n'),
        (_file("src/bot.py", 0o4755), BOT),  # setuid asked for: not given
        (_file("inner.zip"), b"PK\x05\x06" + bytes(18)),  # a nested archive stays packed
    ])
    assert unpack(archive, place / "out") == 3
    assert (place / "out" / "src" / "bot.py").read_bytes() == BOT
    assert stat.S_IMODE(os.stat(place / "out" / "src" / "bot.py").st_mode) == 0o755
    assert stat.S_IMODE(os.stat(place / "out" / "bot.toml").st_mode) == 0o644
    assert (place / "out" / "inner.zip").is_file()
    assert manifest.read(place / "out").run == ("python3", "bot.py")


def test_a_plain_zip_unpacks(place: Path):
    archive = place / "in" / "bot.zip"
    with zipfile.ZipFile(archive, "w", zipfile.ZIP_DEFLATED) as zf:
        zf.writestr("bot/", "")
        zf.writestr("bot/bot.py", BOT)
    assert unpack(archive, place / "out") == 1
    assert (place / "out" / "bot" / "bot.py").read_bytes() == BOT


@pytest.mark.parametrize("name", ["../evil.py", "a/../../evil.py", "/tmp/evil.py", "C:/evil.py", "a\\..\\evil.py", ""])
def test_a_path_out_of_the_folder_is_refused_and_nothing_is_written(place: Path, name: str):
    archive = _tar(place / "in" / "bad.tar.gz", [(_file("ok.py"), BOT), (_file(name), BOT)])
    before = _listing(place)
    with pytest.raises(SubmissionError, match="outside the submission's folder"):
        unpack(archive, place / "out")
    assert _listing(place) == before  # not even the first, harmless member: the folder is gone


@pytest.mark.parametrize("link", [_link("up", "/etc"), _link("in", "ok.py"), _link("hard", "ok.py", tarfile.LNKTYPE),
                                  _link("dev", "", tarfile.CHRTYPE), _link("fifo", "", tarfile.FIFOTYPE)])
def test_links_devices_and_fifos_are_refused(place: Path, link: tarfile.TarInfo):
    archive = _tar(place / "in" / "bad.tar", [(_file("ok.py"), BOT), (link, None)], mode="w")
    with pytest.raises(SubmissionError, match="link|device"):
        unpack(archive, place / "out")
    assert not (place / "out").exists()


def test_a_link_then_a_file_through_it_is_refused(place: Path):
    """The classic escape: a link to outside, then a member written through it."""
    archive = _tar(place / "in" / "bad.tar.gz", [(_link("up", str(place)), None), (_file("up/escaped.py"), BOT)])
    with pytest.raises(SubmissionError):
        unpack(archive, place / "out")
    assert not (place / "escaped.py").exists()


def test_a_zip_symlink_is_refused(place: Path):
    archive = place / "in" / "bad.zip"
    with zipfile.ZipFile(archive, "w") as zf:
        info = zipfile.ZipInfo("up")
        info.external_attr = (stat.S_IFLNK | 0o777) << 16
        zf.writestr(info, "/etc")
    with pytest.raises(SubmissionError, match="is a link"):
        unpack(archive, place / "out")


def test_a_zip_bomb_is_refused_by_its_ratio(place: Path):
    archive = place / "in" / "bomb.zip"
    with zipfile.ZipFile(archive, "w", zipfile.ZIP_DEFLATED) as zf:
        zf.writestr("zeros", bytes(8 * 1024 * 1024))  # 8 MiB of zeros: ~8 KiB deflated
    with pytest.raises(SubmissionError, match="zip bomb"):
        unpack(archive, place / "out")
    assert not (place / "out").exists()


def test_a_zip_whose_index_lies_about_sizes_is_stopped_while_inflating(place: Path):
    """The index says 100 bytes; the stream inflates to megabytes: counted as it comes."""
    archive = place / "in" / "liar.zip"
    with zipfile.ZipFile(archive, "w", zipfile.ZIP_DEFLATED) as zf:
        zf.writestr("zeros", bytes(4 * 1024 * 1024))
    data = bytearray(archive.read_bytes())
    size = (4 * 1024 * 1024).to_bytes(4, "little")
    for at in range(len(data) - 3):  # the uncompressed size, in the local header and the central directory
        if data[at:at + 4] == size:
            data[at:at + 4] = (100).to_bytes(4, "little")
    archive.write_bytes(bytes(data))
    with pytest.raises(SubmissionError):
        unpack(archive, place / "out", Caps(ratio=1e9))
    assert not (place / "out").exists()


def test_the_total_size_and_file_count_are_capped(place: Path):
    archive = _tar(place / "in" / "big.tar", [(_file(f"f{i}"), b"x" * 1000) for i in range(20)], mode="w")
    with pytest.raises(SubmissionError, match="more than 10 files"):
        unpack(archive, place / "a", Caps(files=10))
    with pytest.raises(SubmissionError, match="more than 5,000 bytes"):
        unpack(archive, place / "b", Caps(total_bytes=5000))
    assert unpack(archive, place / "c") == 20


def test_a_tar_member_declaring_too_much_is_refused_at_its_header(place: Path):
    """A member declaring gigabytes stops the reading at its header: nothing is inflated."""
    archive = place / "in" / "huge.tar"
    info = _file("huge")
    info.size = 10 * 1024 ** 3
    with open(archive, "wb") as out:
        out.write(info.tobuf(format=tarfile.GNU_FORMAT))  # the header alone, no data: a truncated tar
    with pytest.raises(SubmissionError, match="more than"):
        unpack(archive, place / "out")


def test_garbage_is_refused_in_one_line(place: Path):
    archive = place / "in" / "junk.tar.gz"
    archive.write_bytes(b"not an archive at all")
    with pytest.raises(SubmissionError, match="not a readable"):
        unpack(archive, place / "out")


def test_safe_path():
    assert str(safe_path("./a//b/c.py")) == "a/b/c.py"
    assert safe_path("a/..") is None and safe_path("..") is None and safe_path("a\x00b") is None


# -- the manifest --------------------------------------------------------------------------------

GOOD = 'name = "sharp-eights"\nauthor = "Ana Pérez"\nversion = "1.2"\nrun = ["./bot", "--fast"]\nbuild = "make"\n'


def test_a_good_manifest():
    m = manifest.parse(GOOD)
    assert (m.name, m.author, m.version, m.run, m.build, m.language) == (
        "sharp-eights", "Ana Pérez", "1.2", ("./bot", "--fast"), ("make",), None)
    assert manifest.parse('name = "x"\nauthor = "y"\nrun = "python3 bot.py"').version == "1"


@pytest.mark.parametrize("text, field", [
    ('author = "y"\nrun = "x"', "name is missing"),
    ('name = "x"\nrun = "x"', "author is missing"),
    ('name = "x"\nauthor = "y"', "run is missing"),
    ('name = "../x"\nauthor = "y"\nrun = "x"', "name '../x' must be"),
    ('name = "x y"\nauthor = "y"\nrun = "x"', "name 'x y' must be"),
    ('name = "x"\nauthor = "y\\u0007"\nrun = "x"', "author holds characters"),
    ('name = "x"\nauthor = "y"\nrun = 3', "run must be a command line"),
    ('name = "x"\nauthor = "y"\nrun = "\'unclosed"', "run cannot be split"),
    ('name = "x"\nauthor = "y"\nrun = ""', "run must be a non-empty|run is empty"),
    ('name = "x"\nauthor = "y"\nrun = "x"\ncolour = "red"', "unknown key 'colour'"),
    ('name = "x"\nauthor = "' + "y" * 101 + '"\nrun = "x"', "author is over 100"),
    ("name = ", "not valid TOML"),
])
def test_a_bad_manifest_is_refused_naming_its_field(text: str, field: str):
    with pytest.raises(SubmissionError, match=field):
        manifest.parse(text)


def test_a_missing_or_linked_manifest(tmp_path: Path):
    with pytest.raises(SubmissionError, match="no bot.toml"):
        manifest.read(tmp_path)
    (tmp_path / "elsewhere.toml").write_text(GOOD)
    (tmp_path / "bot.toml").symlink_to(tmp_path / "elsewhere.toml")
    with pytest.raises(SubmissionError, match="no bot.toml"):
        manifest.read(tmp_path)
