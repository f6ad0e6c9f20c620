"""The device commands' text: the profile as a table, the comparison as a few lines."""

from __future__ import annotations


def profile_text(rows: dict) -> str:
    unit = rows["unit"]
    lines = [f"{'step':>4} {'op':<24} {'MACs':>10} {unit:>13} {'%':>6}  kernel"]
    for r in rows["layers"]:
        percent = f"{r['percent']:.2f}" if r["percent"] is not None else "-"
        lines.append(f"{r['step']:>4} {r['op']:<24} {r['macs']:>10} {r[unit]:>13} {percent:>6}  {r['kernel']}")
    lines.append(f"layers {rows['layers_sum']} {unit}, whole invoke {rows['invoke']} "
                 f"(ratio {rows['layers_sum_ratio']})")
    return "\n".join(lines)


def compare_text(result: dict) -> str:
    first = result["first_divergence"]
    tflm = result.get("tflite_micro")
    said = "" if tflm is None else (", outputs equal TFLite Micro's" if tflm["outputs_match"]
                                    else ", outputs differ from TFLite Micro's")
    if first is None:
        return f"{result['model']}: all {result['layers_compared']} layers match the reference interpreter{said}"
    if "reason" in first:
        return f"{result['model']}: the run failed with {first['reason']}"
    values = ", ".join(f"{e['index']}: device {e['device']}, {first['against']} {e[first['against']]}"
                       for e in first["first"])
    return (f"{result['model']}: first divergence at step {first['step']} ({first['op']} '{first['name']}' -> "
            f"{first['tensor']}) against the {first['against'].replace('_', ' ')}: "
            f"{first['elements_differing']} of {first['elements']} elements differ; {values}")
