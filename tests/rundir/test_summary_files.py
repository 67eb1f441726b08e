import json
import threading

from doomagent.rundir.summary import write_json


def test_threads_writing_one_json_file_each_leave_a_whole_file_and_no_temp(tmp_path):
    """Two MCP games starting in one group write its recipe.json at once: no writer may lose its temp file to the
    other's rename (the shared temp name did: FileNotFoundError), and the file is always one writer's whole JSON."""
    path = tmp_path / "recipe.json"
    errors: list[BaseException] = []
    start = threading.Barrier(8)

    def writer(n: int) -> None:
        start.wait()
        try:
            for i in range(200):
                write_json(path, {"writer": n, "i": i, "pad": "x" * 4000})
        except BaseException as exc:  # every writer's failure is reported
            errors.append(exc)

    threads = [threading.Thread(target=writer, args=(n,)) for n in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert errors == []
    data = json.loads(path.read_text(encoding="utf-8"))
    assert data["i"] == 199 and data["writer"] in range(8)
    assert [p.name for p in tmp_path.iterdir()] == ["recipe.json"]
