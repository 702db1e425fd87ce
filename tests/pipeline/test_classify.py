from tests.pipeline.helpers import PROFILE, item, run


def areas(*args, **kwargs) -> list[str]:
    [only] = run(item(1, *args, **kwargs), use_labels=kwargs.pop("use_labels", True)).values()
    return only.areas


def test_labels_title_tags_and_keywords_each_classify() -> None:
    assert areas("Some problem", labels=["module: inductor"]) == ["compiler"]
    assert areas("[FSDP2] Reshard after forward is slow on 8 GPUs")[:2] == ["distributed", "performance"]
    assert areas("torch.compile recompiles on every call") == ["compiler"]
    assert areas("F.interpolate gives NaN on mps") == ["mps"]


def test_a_tag_written_in_camel_case_is_read_word_by_word() -> None:
    # "[LatheDTensor]" and "[GrommetFsdp]" hold an area's tag as one of their words
    assert areas("[LatheDTensor] Name the signal in the sprocket's exit message") == ["distributed"]
    assert areas("[GrommetFsdp] Name the signal in the sprocket's exit message") == ["distributed"]
    assert areas("[Grommet] Name the signal in the sprocket's exit message") == ["core"]


def test_unlabelled_items_are_classified_from_their_text_and_owner_lists() -> None:
    body = "Platforms: rocm\n\nThis test was disabled because it is failing in CI.\n\ncc @alice @bob @carol"
    assert "rocm" in areas("DISABLED test_foo (__main__.TestBar)", body=body)
    # the owners the profile lists for the area, not handles written into the test
    [distributed] = [area for area in PROFILE.areas if area.id == "distributed"]
    cc_only = "Some text.\n\ncc " + " ".join(f"@{owner}" for owner in distributed.owners[:3])
    assert areas("A thing is wrong", body=cc_only) == ["distributed"]
    # a triager's area label outranks the cc list
    assert areas("A thing is wrong", body=cc_only, labels=["module: mps"]) == ["mps"]
    # so does a label the profile maps to no area: the bot cc'd that label's followers
    assert areas("A thing is wrong", body=cc_only, labels=["module: sprockets"]) == ["core"]


def test_a_repro_that_compiles_names_the_compiler_stack() -> None:
    body = "Outputs differ by one ulp.\n\n```python\nout = torch.compile(grommet)(x)\n```"
    assert "compiler" in areas("Sprocket results differ", body=body)
    assert "compiler" not in areas("Sprocket results differ", body=body.replace("torch.compile(", "grommet("))


def test_one_body_keyword_is_not_enough_but_several_are() -> None:
    assert areas("Weird error", body="I was using triton once.") == ["core"]
    assert "compiler" in areas("Weird error", body="triton kernel from inductor after dynamo traced it")


def test_a_keyword_that_also_has_a_keyword_prefix_counts_once() -> None:
    # the profile lists "recompile" as a word and "recompil*" as a prefix: one mention is one hit,
    # so it and one other body keyword stay below an area's threshold
    body = "The fused kernel sums in half precision; a change to it needs a recompile of the library."
    assert "compiler" not in areas("Accumulate in fp32 in the pooling shader", body=body)
    assert "compiler" in areas(
        "Accumulate in fp32 in the pooling shader", body=body + " It also breaks fx graph capture."
    )


def test_an_environment_report_pasted_without_a_fence_names_no_area() -> None:
    body = (
        "### Describe the bug\n\nStacking a zero-length tuple segfaults.\n\n### Versions\n\n"
        "Collecting environment information...\nPyTorch version: 3.0.1\nIs debug build: False\n"
        "ROCM used to build PyTorch: N/A\n"
        "HIP runtime version: N/A\nMIOpen runtime version: N/A\nIs XNNPACK available: True\n"
    )
    assert "rocm" not in areas("Segfault when stacking", body=body)
    # what follows the report under another heading is read again
    assert "rocm" in areas(
        "Segfault when stacking", body=body + "\n### Notes\nAlso fails with ROCm 6.2 on MI300X (gfx942, HIP runtime)."
    )


def test_multi_label_and_evidence_written_down() -> None:
    [only] = run(item(1, "[inductor] 20% throughput regression on H100", labels=["module: performance"])).values()
    assert only.areas[:3] == ["compiler", "performance", "cuda"]
    assert only.area_evidence["compiler"][0] == "title tag [inductor]"
    assert "label module: performance" in only.area_evidence["performance"]


def test_labels_can_be_hidden_for_evaluation() -> None:
    assert areas("Some problem", labels=["module: xpu"], use_labels=False) == ["core"]


def test_rfcs_and_community_kinds() -> None:
    assert "rfc" in areas("[RFC] A new device-generic allocator", kind="rfc")
