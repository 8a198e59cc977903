"""A notice about the image or the captions is a warning the eye finds, not words after "Done:"."""

from explorer.engine import OFF_WORLD, Analysis
from explorer.ui import main_tab


def test_a_notice_is_a_warning_box_of_its_own_with_its_text_escaped():
    said = main_tab._done(Analysis(("a", "b"), {}, "world-clip", "cpu", (), (OFF_WORLD, "<b>x</b> *y*")))
    assert said.startswith("Done: scored by **world-clip** on cpu.")
    first, second = said.split("\n\n")[1:]
    assert first == main_tab.NOTICE.format(OFF_WORLD.replace("&", "&amp;"))  # a box of its own, role="alert"
    assert 'class="notice" role="alert"' in first
    assert "&lt;b&gt;x&lt;/b&gt; *y*" in second  # user text never markup: HTML, where markdown is not read
    assert main_tab._done(Analysis(("a", "b"), {}, "m", "cpu")) == "Done: scored by **m** on cpu."  # none: no box
