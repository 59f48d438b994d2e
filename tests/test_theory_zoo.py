from attndepth.theory.depth_width import VERDICTS
from attndepth.theory.zoo import load_zoo, zoo_verdicts


def test_zoo_rows_have_sources_and_plausible_counts():
    zoo = load_zoo()
    assert len(zoo) >= 12
    names = {m.name for m in zoo}
    assert {"BERT-base", "GPT-3 175B", "Jurassic-1 Jumbo", "NeoBERT", "LLaMA 65B"} <= names
    for model in zoo:
        assert model.source and model.layers > 0 and model.width > 0
        if model.name != "T5-11B":  # its 64K-wide FFN breaks the 12·L·d² convention
            assert 0.6 < 12 * model.layers * model.width**2 / model.params < 1.1


def test_zoo_verdicts():
    verdicts = {model.name: plan.verdict for model, plan in zoo_verdicts()}
    assert verdicts["GPT-3 175B"] == VERDICTS[0]
    assert verdicts["Jurassic-1 Jumbo"] == VERDICTS[2]
