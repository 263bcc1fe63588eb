"""Edits to any kernel source drop the kernels' numba cache (numba itself only checks the
file of each cached function, not the files of what it calls)."""

import kernels


def test_a_changed_source_drops_the_cache(tmp_path, monkeypatch):
    monkeypatch.setenv("NUMBA_CACHE_DIR", str(tmp_path))
    (cache,) = kernels._cache_dirs()
    assert cache.is_relative_to(tmp_path) and cache.parts[-1] == "kernels"
    (cache / "samsara").mkdir(parents=True)
    stale = cache / "samsara" / "play.play_chunk-1.py311.nbi"
    stale.write_text("old")
    other = tmp_path / "elsewhere.nbi"  # another project's cache is never touched
    other.write_text("theirs")
    stamp = kernels._ROOT / "__pycache__" / kernels._STAMP
    saved = stamp.read_text() if stamp.exists() else None
    try:
        stamp.write_text("a digest of other sources")
        kernels._drop_stale_cache()
        assert not stale.exists() and other.exists()
        assert stamp.read_text() == kernels._sources_digest()
        stale.write_text("new")
        kernels._drop_stale_cache()  # unchanged sources: the cache stays
        assert stale.exists()
    finally:
        if saved is not None:
            stamp.write_text(saved)
