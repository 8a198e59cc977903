"""Methods describe themselves in one registry: a method added as one folder (its tab declared in a file of it) is
on the page, in its legend, on a tab of its own and in Browse, with no other file touched."""

import importlib
import sys
from unittest import mock

import pytest
from gradio_client import Client, handle_file

import explorer.methods
from explorer import world
from explorer.methods import REGISTRY, MethodInfo, ScoringMethod, page_methods, register
from explorer.ui.method_tab import handlers
from tests.app_server import running_app

METHOD_FILE = '''"""The global cosine's opposite: a method added as one folder."""

from explorer.methods.base import MethodInfo, ScoringMethod, register
from explorer.methods.contrary import tab
from explorer.methods.results import Score


@register(MethodInfo("contrary", "contrary cosine", "minus the global cosine", "-1 to 1", page_order=99,
                     tab=tab.TAB))
class Contrary(ScoringMethod):
    def score_new(self, state, captions):
        img = self.encoder.encode_image(state).embedding
        return [Score(self.name, t.caption, -float(img @ t.embedding)) for t in self.encoder.encode_texts(captions)]
'''
TAB_FILE = '''"""The contrary cosine's tab, declared: no gradio in a method's folder."""

from explorer.methods.tabs import MethodTab, Step, Text

NOTE = Text("contrary-note", waiting=True)


def contrary_note(image, analysis):
    return (f"A: {analysis.scores['contrary'][0].value:.4f}",)


TAB = MethodTab("Contrary cosine", "The global cosine, the other way round.", (NOTE,), (Step(contrary_note, (NOTE,)),))
'''
ADDED = ("explorer.methods.contrary.tab", "explorer.methods.contrary")


@pytest.fixture
def contrary(tmp_path, monkeypatch):
    """The method's folder dropped beside the package's own (a folder on its ``__path__``), its tab in it, found as
    the package finds its own; the registry and the modules as they were afterwards."""
    folder = tmp_path / "methods" / "contrary"
    folder.mkdir(parents=True)
    (folder / "__init__.py").write_text(METHOD_FILE)
    (folder / "tab.py").write_text(TAB_FILE)
    monkeypatch.setattr(explorer.methods, "__path__", [*explorer.methods.__path__, str(tmp_path / "methods")])
    importlib.invalidate_caches()
    with mock.patch.dict(REGISTRY):
        explorer.methods.discover()
        yield REGISTRY["contrary"]
    for module in ADDED:
        sys.modules.pop(module, None)
        parent, _, child = module.rpartition(".")
        if parent in sys.modules and hasattr(sys.modules[parent], child):
            delattr(sys.modules[parent], child)


def component(config: dict, kind: str, **props) -> list[dict]:
    """The props of the page's components of ``kind`` whose props include ``props``, as the browser gets them."""
    return [c["props"] for c in config["components"]
            if c["type"] == kind and all(c["props"].get(k) == v for k, v in props.items())]


def test_a_method_in_one_file_is_on_the_page_in_the_legend_on_its_tab_and_in_browse(contrary, embedded, tmp_path):
    assert page_methods()[-1] == "contrary" and contrary.label == "contrary cosine"
    path = tmp_path / "scene.png"
    world.swap_items("id", "attribute", 1)[0].images[0].render(128).save(path)
    with running_app(embedded) as url:
        client = Client(url, verbose=False)
        [legend] = component(client.config, "markdown", elem_id="legend")
        assert "*contrary cosine*: minus the global cosine (-1 to 1)." in legend["value"]
        assert component(client.config, "tabitem", id="contrary")[0]["label"] == "Contrary cosine"
        assert component(client.config, "markdown", elem_id="contrary-note")
        assert component(client.config, "markdown", value="The global cosine, the other way round.")
        assert "/contrary_note" in client.view_api(print_info=False, return_format="dict")["named_endpoints"]
        assert handlers("contrary")["contrary_note"](None) == ("Run a comparison on the first tab: this tab shows its "
                                                               "contrary cosine evidence.",)

        status, _, table, *_ = client.predict(handle_file(str(path)), "a red square", "a blue circle",
                                              api_name="/analyze")
        rows = {row[0]: row for row in table["data"]}
        assert status.startswith("Done") and list(rows)[-1] == "contrary cosine"
        assert rows["contrary cosine"][2:] == pytest.approx([-v for v in rows["global cosine"][2:]], abs=2e-4)

        client.predict("world", "", 1, api_name="/browse_load")
        *_, details = client.predict(0, api_name="/browse_show")
        verdicts = dict(line.strip("| ").split(" | ") for line in details.splitlines()[-len(page_methods()):])
        assert verdicts["contrary cosine"] in ("right", "**wrong**")


def test_the_added_method_is_gone_once_its_test_is_over():
    assert "contrary" not in REGISTRY and not set(ADDED) & set(sys.modules)
    assert not hasattr(explorer.methods, "contrary")


def test_every_registered_method_describes_itself_and_its_tab_exists():
    orders = [cls.info.page_order for cls in REGISTRY.values() if cls.info.page_order is not None]
    assert len(orders) == len(set(orders)) and page_methods()
    for name, cls in REGISTRY.items():
        info = cls.info
        assert (info.name, cls.name, cls.label) == (name, name, info.label) and info.legend and info.scale
        if info.tab:
            assert info.tab.title and info.tab.steps and info.page_order is not None
            assert list(handlers(name)) == [step.fn.__name__ for step in info.tab.steps]


def test_two_methods_under_one_name_are_refused():
    with mock.patch.dict(REGISTRY), pytest.raises(ValueError, match="two methods named 'global'"):
        register(MethodInfo("global", "another", "anything", "-1 to 1"))(type("Another", (ScoringMethod,), {}))


def test_powerclip_is_one_name_and_its_former_name_is_still_read(embedded):
    from explorer.methods import canonical, get_method

    assert "powerclip" in REGISTRY and "powerset" not in REGISTRY and canonical("powerset") == "powerclip"
    assert get_method("powerset", embedded).name == "powerclip" and canonical("sgi") == "sgi"
    with pytest.raises(ValueError, match="unknown method 'powersets'"):
        get_method("powersets", embedded)
