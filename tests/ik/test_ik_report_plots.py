"""The IK report's schedule figure: both panels, each with a legend naming its marks."""

from robohw.ik.report import plot_ik_schedules


def test_the_schedule_figure_has_a_legend_on_every_panel(tmp_path, monkeypatch):
    import matplotlib.figure
    drawn = []
    original = matplotlib.figure.Figure.savefig

    def keep(figure, *args, **kwargs):
        drawn.append(figure)
        return original(figure, *args, **kwargs)
    monkeypatch.setattr(matplotlib.figure.Figure, "savefig", keep)
    plot_ik_schedules(tmp_path / "ik_schedule.png")
    assert (tmp_path / "ik_schedule.png").read_bytes().startswith(b"\x89PNG")
    axes = drawn[0].axes
    assert len(axes) == 2
    for axis in axes:
        labels = [t.get_text() for t in axis.get_legend().get_texts()]
        assert labels == ["CCM: start to result", "longest operand wait (buffer)"]
