"""The page's state in its URL: a link under the scores that opens the same analysis (an example or a world item,
the captions, the model, the tab), and a page opened from such a link set up and compared."""

from __future__ import annotations

import gradio as gr

from explorer.engine import Engine, share
from explorer.images.inputs import InputError
from explorer.models.model_errors import ModelUnavailable
from explorer.ui import sessions
from explorer.ui.guard import plain, warn
from explorer.ui.main_tab import MainInputs, device_line
from explorer.ui.serving import Serving

NO_LINK = "An uploaded image has no link: pick an example, or send an item from Browse, to share its analysis."


def wire(demo: gr.Blocks, engine: Engine, main: MainInputs, tabs: gr.Tabs, pages: list[gr.Tab], shown: gr.State,
         serving: Serving) -> None:
    """Keep ``main.link`` at the comparison shown and the tab in view (``shown``, or the tab just selected); set up a
    page opened from a link."""
    tab_ids = [page.id for page in pages]

    def link_of(last: tuple | None, choice: str, tab: str) -> str:
        if last is None:
            return ""
        image, analysis = last
        found = share.query(image, share.Shared(*analysis.captions, choice, tab))
        return f"[Link to this analysis]({found}) (it opens this comparison, on this tab)" if found else NO_LINK

    def restore(request: gr.Request):
        """A page opened from a link: its inputs filled, its model and tab chosen, and compared (it follows them)."""
        try:
            shared = share.parse(dict(request.query_params), engine.choices(), tab_ids)
            if shared is None:
                return (*(gr.update(),) * 9, "")
            device = device_line(engine, shared.model)  # loads it: the comparison that follows needs it anyway
        except (InputError, ModelUnavailable) as exc:
            return (*(gr.update(),) * 9, warn(str(exc)))
        path = share.picture_of(shared, sessions.folder("links"))
        return (str(path), shared.caption_a, shared.caption_b, True, shared.model, shared.model, device,
                gr.Tabs(selected=shared.tab), shared.tab,
                f"Opened from a link: {plain(shared.example or shared.item)}.")

    main.result.change(link_of, [main.result, main.choice, shown], main.link, **serving.light)
    for page in pages:  # with no comparison shown, a tab's selection leaves the line as it is (a link's message)
        page.select(lambda last, choice, tab=page.id: gr.update() if last is None else link_of(last, choice, tab),
                    [main.result, main.choice], main.link, **serving.light)
    demo.load(restore, None, [main.upload, main.caption_a, main.caption_b, main.following, main.choice, main.model,
                              main.device, tabs, shown, main.link], **serving.light)
