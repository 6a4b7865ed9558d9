"""A committed-tier price is worded as such, never as "on-demand" (issue 16, the lead's note)."""

from __future__ import annotations

from ftcost_gui.core.catalog import (
    CatalogGpu,
    PriceUpdate,
    merge_catalogs,
    price_differences,
    with_catalog_prices,
)
from ftcost_gui.core.compare import offer
from ftcost_gui.core.defaults import PRICE_FIELDS
from ftcost_gui.core.document import EstimateDocument
from ftcost_gui.core.estimate import estimate
from ftcost_gui.core.inputs import EstimateInputs
from ftcost_gui.core.units import fmt_usd
from ftcost_gui.gui.catalog.text import fmt_price, price_message
from ftcost_gui.io.estimate_file import load_document
from ftcost_gui.io.resources import builtin_catalog
from ftcost_gui.present.blocks import to_markdown
from ftcost_gui.present.explain import explain
from ftcost_gui.present.figures import breakdown_rows, headline_texts
from ftcost_gui.present.objective import stages_text
from ftcost_gui.present.ranges import price_source, range_rows
from ftcost_gui.present.sections import estimate_sections, spot_advice
from ftcost_gui.present.tables import comparison_table, price_rows
from ftcost_gui.report.content import Report, image_captions
from tests.io.test_estimate_file import FIXTURE_V2


def _with_tier(tier: str, **prices: float) -> EstimateInputs:
    inputs = EstimateInputs()
    gpu = inputs.hardware.gpu.model_copy(update={"pricing_tier": tier, **prices})
    return inputs.model_copy(update={"hardware": inputs.hardware.model_copy(update={"gpu": gpu})})


def test_a_catalog_rows_tier_travels_into_the_estimate():
    row = CatalogGpu(pricing_tier="committed_3y")
    assert row.to_spec().pricing_tier == "committed_3y"


def test_committed_prices_are_worded_as_committed():
    inputs = _with_tier("committed_1y")
    r = estimate(inputs)
    value = headline_texts(inputs, r)["cost"][0]
    assert value.endswith("1-year committed") and "on-demand" not in value
    labels = [item for _group, item, _value in breakdown_rows(inputs, r)]
    assert "Total 1-year committed" in labels and "Total on-demand" not in labels
    cost = next(s for s in estimate_sections(inputs, r) if s.title == "Cost per run")
    assert cost.rows[0][0] == "1-year committed"
    assert "cost per run (1-year committed)" in to_markdown(explain(inputs, r))
    doc = EstimateDocument.single(inputs)
    assert price_rows(doc)[0].on_demand.endswith("(1-year committed)")


def test_on_demand_prices_read_as_before():
    inputs = _with_tier("on_demand")
    r = estimate(inputs)
    assert headline_texts(inputs, r)["cost"][0].endswith(" on-demand")
    assert "(" not in price_rows(EstimateDocument.single(inputs))[0].on_demand


def test_spot_advice_keeps_a_committed_price():
    inputs = _with_tier("committed_3y", spot_usd_per_hour=2.95)
    c = estimate(inputs).cost
    assert c.spot_price_ratio is not None and not c.take_spot  # 2.95 ÷ 3.00 × F(> 1.02) ≥ 1
    assert spot_advice(c, "committed_3y") == "keep the 3-year committed price"
    assert spot_advice(c, "on_demand") == "stay on-demand"
    spot = next(s for s in estimate_sections(inputs, estimate(inputs)) if s.title == "Cost per run")
    assert "keep the 3-year committed price" in spot.rows[1][1]
    assert spot.rows[1][1].endswith("× 3-year committed)")


def test_the_catalogs_price_update_brings_its_tier():
    spec = EstimateInputs().hardware.gpu
    row = CatalogGpu(on_demand_usd_per_hour=1.8, pricing_tier="committed_1y").to_spec()
    updated = with_catalog_prices(spec, row)
    assert (updated.on_demand_usd_per_hour, updated.pricing_tier) == (1.8, "committed_1y")


def test_rows_that_differ_only_in_tier_share_one_plan():
    a = offer(CatalogGpu(id="h100-a"))
    b = offer(CatalogGpu(id="h100-b", pricing_tier="committed_1y", on_demand_usd_per_hour=2.1))
    assert a.facts == b.facts and b.pricing_tier == "committed_1y"


def test_a_typed_tier_is_the_users_price():
    assert "pricing_tier" in PRICE_FIELDS


def test_version_2_files_read_as_on_demand():
    for scenario in load_document(FIXTURE_V2).scenarios:
        assert scenario.inputs.hardware.gpu.pricing_tier == "on_demand"


def test_report_caption_names_the_solid_lines_price():
    inputs = _with_tier("committed_1y")
    report = Report(EstimateDocument.single(inputs), [estimate(inputs)])
    assert "solid: 1-year committed" in image_captions(report)["cost"]
    two = EstimateDocument.single(inputs).added(EstimateInputs(), "B")
    report = Report(two, [estimate(s.inputs) for s in two.scenarios])
    caption = image_captions(report)["cost"]
    assert "solid: each scenario's 1-year committed or on-demand price" in caption


def test_the_comparison_words_each_scenarios_first_price():
    committed, plain_inputs = _with_tier("committed_1y"), EstimateInputs()
    results = [estimate(committed), estimate(plain_inputs)]
    both = comparison_table(["A", "B"], results, 0, ["committed_1y", "on_demand"])
    assert both.labels[both.keys.index("on_demand_usd")] == (
        "Cost per run, 1-year committed / on-demand"
    )
    one = comparison_table(["A"], results[:1], 0, ["committed_1y"])
    assert one.labels[one.keys.index("on_demand_usd")] == "Cost per run, 1-year committed"
    bare = comparison_table(["A"], results[:1])
    assert bare.labels[bare.keys.index("on_demand_usd")] == "Cost per run, on-demand"


def test_the_stages_sum_is_worded_by_tier():
    committed = _with_tier("committed_1y")
    r = estimate(committed)
    total = 2 * r.project.runs * r.cost.on_demand_usd  # two stages, each its runs × run cost
    one = stages_text(["A", "B"], [r, r], ["committed_1y", "committed_1y"])
    assert f"{fmt_usd(total)} 1-year committed (" in one and "on-demand" not in one
    mixed = stages_text(["A", "B"], [r, r], ["committed_1y", "on_demand"])
    assert f"{fmt_usd(total)} at each stage's price (1-year committed / on-demand)" in mixed
    assert f"{fmt_usd(total)} on-demand (" in stages_text(["A", "B"], [r, r])


def test_a_tier_alone_is_a_price_difference():
    builtin = builtin_catalog()
    rows = merge_catalogs(builtin)
    spec = builtin.find("h100-sxm").to_spec()
    assert price_differences(spec, rows) is None
    committed = spec.model_copy(update={"pricing_tier": "committed_1y"})
    assert price_differences(committed, rows) == PriceUpdate(
        spec.on_demand_usd_per_hour, spec.spot_usd_per_hour, "on_demand"
    )
    price = fmt_price(spec.on_demand_usd_per_hour)
    assert price_message(committed, rows[[r.gpu.id for r in rows].index("h100-sxm")]) == (
        f"This estimate uses {price} 1-year committed; your catalog 'Built-in' says {price} "
        "on-demand (H100 SXM)."
    )
    spot_tier = spec.model_copy(update={"pricing_tier": "spot"})
    message = price_message(spot_tier, rows[[r.gpu.id for r in rows].index("h100-sxm")])
    assert message.startswith(f"This estimate uses {price} on-demand, billed at spot;")


def test_the_ranges_word_the_tier():
    inputs = _with_tier("committed_3y", on_demand_low_usd_per_hour=2.0)
    r = estimate(inputs)
    names = [row[0] for row in range_rows(inputs, r)]
    assert "Cost per run (3-year committed)" in names and "Cost per run (on-demand)" not in names
    assert price_source(inputs, r).startswith("3-year committed offers $2.00 – $3.00")


def test_spot_billing_without_a_spot_price_names_the_rate_it_falls_back_to():
    """Spot asked for, no spot price: the run is billed at the row's own tier, worded as such."""

    def warning(tier: str) -> str:
        inputs = _with_tier(tier, on_demand_usd_per_hour=2.0)
        gpu = inputs.hardware.gpu.model_copy(update={"spot_usd_per_hour": None})
        project = inputs.project.model_copy(update={"billing": "spot"})
        hardware = inputs.hardware.model_copy(update={"gpu": gpu})
        r = estimate(inputs.model_copy(update={"hardware": hardware, "project": project}))
        (found,) = [w for w in r.warnings if w.startswith("No spot price")]
        return found

    assert warning("committed_1y").endswith("priced at its 1-year committed rate.")
    assert warning("on_demand").endswith("priced at its on-demand rate.")


def test_a_long_chain_of_stages_names_its_ends():
    from ftcost_gui.present.objective import stage_chain

    names = [f"S{i}" for i in range(1, 201)]
    assert stage_chain(names[:1]) == "S1"
    assert stage_chain(names[:7]) == "S1 → S2 → S3 → S4 → S5 → S6 → S7"  # seven: all named
    assert stage_chain(names[:8]) == "S1 → S2 → S3 → … 2 more … → S6 → S7 → S8"
    assert stage_chain(names) == "S1 → S2 → S3 → … 194 more … → S198 → S199 → S200"
    r = estimate(_with_tier("on_demand"))
    text = stages_text(names, [r] * 200)
    assert text.startswith("As project stages, one after the other (S1 → S2 → S3 → … 194 more")
    total = 200 * r.project.runs * r.cost.on_demand_usd  # the sum is still over all 200
    assert f"{fmt_usd(total)} on-demand (" in text
