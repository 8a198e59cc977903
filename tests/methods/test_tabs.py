"""A method's tab is a plain declaration: its parts laid out in order, and steps that read and fill only those."""

import pytest

from explorer.methods.tabs import Column, Menu, MethodTab, Picks, Picture, Row, Step, Text, laid_out


def note(image, analysis):
    return ("",)


def test_the_parts_in_rows_and_columns_are_laid_out_in_order():
    a, b, c, d = Text("a"), Picks("b", "B"), Picture("c", "C"), Menu("D", (("x", 1),), 1)
    assert laid_out((a, Row((Column((b, c)), d)))) == [a, b, c, d]


def test_a_step_that_fills_or_reads_a_part_not_laid_out_is_refused():
    shown, hidden, menu = Text("shown"), Text("hidden"), Menu("M")
    MethodTab("T", "about", (shown, menu), (Step(note, (shown,), (menu,)),))
    with pytest.raises(ValueError, match="tab 'T': note reads or fills parts not laid out"):
        MethodTab("T", "about", (shown,), (Step(note, (hidden,)),))
    with pytest.raises(ValueError, match="not laid out"):
        MethodTab("T", "about", (shown,), (Step(note, (shown,), (menu,)),))
