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


def test_a_methods_weak_evidence_is_said_beside_its_verdict_on_the_page_and_in_the_2x2():
    import numpy as np

    from explorer.engine.cautions import Caution
    from explorer.figures.two_by_two import Grid, grid_html
    from explorer.methods import Score

    scores = {name: (Score(name, "a", 0.81), Score(name, "b", 0.80)) for name in ("global", "sgi")}
    weak = "its match for 'red square' lies mostly on empty background"
    judged = Analysis(("a", "b"), scores, "m", "cpu", cautions=(Caution("sgi", 0, weak, 0.95),))
    assert main_tab.verdict_notices(judged) == (f"SGI (prefers A): {weak}",)
    assert main_tab.verdict_notices(Analysis(("a", "b"), scores, "m", "cpu")) == ()  # an engine that judges none
    shown = grid_html(Grid("SGI", np.array([[0.81, 0.82], [0.80, 0.79]]), notes=(f"on image A: {weak}",)))
    assert "\u26a0 on image A: its match for &#x27;red square&#x27; lies mostly on empty background" in shown
