"""The controls' record: a run of some controls merges into the record already there, in the record's order."""

import pytest

from explorer.readings import binding_controls


@pytest.fixture()
def fake_figures(monkeypatch):
    """Every control reads the same one figure, named after it, without fitting anything."""
    def figures(encoder, *args):
        entry = {"value": 1.0, "reading": "above chance", "null": {"p": 0.002, "values": [0.0]}}
        return {"r2.objects.image": entry}, {"label": encoder.label}
    monkeypatch.setattr(binding_controls, "figures", figures)


def test_a_run_of_one_control_merges_into_the_record_in_order_and_keeps_its_command(fake_figures):
    labels = [e.label for e in binding_controls.encoders()]
    full = binding_controls.run("all", lambda r: None)
    assert list(full["controls"]) == labels and full["command"] == "all"
    previous = full | {"controls": {k: v for k, v in full["controls"].items() if "noise 2" not in k}}
    written = []
    merged = binding_controls.run("one", written.append, only="noise 2", previous=previous)
    assert list(merged["controls"]) == labels  # the new control in its place, not at the end
    assert merged["command"] == "all" and merged["controls"][labels[-1]]["command"] == "one"
    assert all("command" not in merged["controls"][k] for k in labels[:-1])
    assert merged["power"]["r2.objects.image"]["2"] == 1 and written[-1] is merged
    assert "values" not in merged["controls"][labels[-1]]["figures"]["r2.objects.image"]["null"]


def test_a_merge_into_a_record_at_other_settings_or_of_no_control_is_refused(fake_figures):
    previous = binding_controls.run("all", lambda r: None, only="noise 2")
    with pytest.raises(binding_controls.Unmergeable, match="draws"):
        binding_controls.run("one", lambda r: None, draws=100, only="noise 2", previous=previous)
    with pytest.raises(binding_controls.Unmergeable, match="no control's label holds 'noise 3'"):
        binding_controls.run("one", lambda r: None, only="noise 3", previous=previous)
