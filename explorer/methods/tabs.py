"""A method's tab on the page, declared in plain Python by its folder (no gradio here): its parts, laid out in
order, and the steps that fill them from the page's last comparison. The page builds every declared tab alike
(``explorer.ui.method_tab``), with its queues, its guard against failures and its drawing while in view."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable, Sequence, Union

Choices = Sequence[tuple[str, Any]]  # a menu's entries: (what it says, the value it gives)


@dataclass(frozen=True)
class Text:
    """Markdown that a step writes (a note, or a problem a drawing met)."""

    elem_id: str
    waiting: bool = False  # it says what to do while no comparison has the method's scores (else it is empty)


@dataclass(frozen=True)
class Scores:
    """The comparison's score table, as every score table of the page (its columns, widths and 4 places)."""

    elem_id: str
    label: str = "Scores"


@dataclass(frozen=True)
class Table:
    """A table of the method's own: a step gives it as a pandas DataFrame with ``headers`` for columns."""

    elem_id: str
    label: str
    headers: tuple[str, ...]
    wide: bool = False  # wider than a phone: it scrolls sideways and says so there


@dataclass(frozen=True)
class Picture:
    """A PIL image a step draws."""

    elem_id: str
    label: str


@dataclass(frozen=True)
class Figure:
    """A plotly figure a step draws."""

    elem_id: str
    label: str


@dataclass(frozen=True)
class Menu:
    """A menu of one choice: its entries given here, or filled by a step (``default`` chosen when they are)."""

    label: str
    choices: Choices = ()
    default: Any = None
    elem_id: str | None = None


@dataclass(frozen=True)
class Picks:
    """Boxes to tick, any number of them (none ticked: all); a step fills them, none ticked."""

    elem_id: str
    label: str


Part = Union[Text, Scores, Table, Picture, Figure, Menu, Picks, "Row", "Column"]


@dataclass(frozen=True)
class Row:
    """Parts side by side."""

    parts: tuple[Part, ...]


@dataclass(frozen=True)
class Column:
    """Parts one above the other, inside a row."""

    parts: tuple[Part, ...]


@dataclass(frozen=True)
class Step:
    """One handler of the tab: ``fn(image, analysis, *values)`` -> one value per output, where ``values`` are
    ``controls``' and ``analysis`` (the engine's ``Analysis``) has the method's scores. A menu's or the boxes' value is
    its entries (``Choices``). It runs for each new comparison while the tab is in view, when the tab is selected,
    and when one of its controls changes; its ``fn``'s name is its name in the page's API."""

    fn: Callable[..., Sequence[Any]]
    outputs: tuple[Part, ...]
    controls: tuple[Menu | Picks, ...] = ()


@dataclass(frozen=True)
class MethodTab:
    """A method's tab: its title, what it shows (markdown, first), its parts in order, and its steps, run one after
    the other."""

    title: str
    about: str
    layout: tuple[Part, ...]
    steps: tuple[Step, ...]

    def __post_init__(self) -> None:
        shown = {id(part) for part in laid_out(self.layout)}
        for step in self.steps:
            if missing := [p for p in (*step.outputs, *step.controls) if id(p) not in shown]:
                raise ValueError(f"tab {self.title!r}: {step.fn.__name__} reads or fills parts not laid out: {missing}")


def laid_out(parts: Sequence[Part]) -> list[Part]:
    """Every part of ``parts``, those in rows and columns too, in order (not the rows and columns themselves)."""
    return [inner for part in parts
            for inner in (laid_out(part.parts) if isinstance(part, (Row, Column)) else [part])]
