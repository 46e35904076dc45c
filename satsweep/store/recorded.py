"""A store's recorded design (design.json): what its runs were made with, and the checks that
keep a design's runs like them (the same base_seed, streams, program, version, defaults and
description) wherever a design meets its store."""

from __future__ import annotations

import datetime as dt
import json
import re
from collections import Counter
from pathlib import Path
from typing import TYPE_CHECKING, Any

from pydantic import ValidationError

import satsweep
from satsweep.design import MAX_REPLICATIONS, Design, DesignError, rng_run
from satsweep.design.loading import first_problem
from satsweep.design.schema import clip
from satsweep.engine import Description, Program, value_text
from satsweep.engine.adapters import adapter as find_adapter
from satsweep.engine.crossed import Crossed
from satsweep.engine.description import validation_message
from satsweep.store.files import write_json
from satsweep.store.footer import column_range
from satsweep.store.layout import (
    FINISHED,
    RECORD,
    Layout,
    StoreError,
    read_columns,
    row_value,
    run_file_name,
)

if TYPE_CHECKING:
    from satsweep.store.runs import State

#: A configuration's directory in runs/: its config_id.
_CONFIG_ID = re.compile(r"[0-9a-f]{12}")

#: The keys of design.json that satsweep reads, each with the JSON type it must have (a
#: mapping's own keys beside it): every reader may then take ``.get`` of what it finds.
_SHAPE: dict[str, Any] = {
    "study": str,
    "design": (
        dict,
        {
            "program": str,
            "base_seed": int,
            "streams": int,
            "replications": int,
            "replications_of": dict,
        },
    ),
    "sha256": str,
    "source": str,
    "program": (dict, {"path": str, "sha256": str}),
    "theory": (dict, {"path": str}),
    "describe": (dict, {"name": str, "version": str, "parameters": list}),
}


_JSON_TYPES = {str: "a string", int: "an integer", dict: "a mapping", list: "a list"}


def _shape_problem(data: Any, shape: dict[str, Any], where: str = "") -> str | None:
    """What in ``data`` is not of its ``shape`` (a key of another JSON type: ``design is
    "garbage"; allowed: a mapping``), else None. A key may be missing (a store of before it),
    and null where it is not a mapping."""
    if not isinstance(data, dict):
        return f"{where or '(top level)'} is {clip(json.dumps(data))}; allowed: a mapping"
    for key, kind in shape.items():
        kind, inner = kind if isinstance(kind, tuple) else (kind, None)
        value, name = data.get(key), f"{where}.{key}" if where else key
        if key not in data or value is None and kind is not dict:
            continue
        if not isinstance(value, kind) or isinstance(value, bool) and kind is int:
            return f"{name} is {clip(json.dumps(value))}; allowed: {_JSON_TYPES[kind]}"
        if inner is not None and (problem := _shape_problem(value, inner, name)):
            return problem
    return None


class RecordedDesign(Layout):
    """A store's design.json: read, written, and checked against a design."""

    #: The archive a store was unpacked from (:func:`~satsweep.store.archive.open_archive`),
    #: which messages name instead of its temporary folder; None for a study's own store.
    unpacked_from: Path | None = None

    def _named(self, path: Path) -> str:
        """A file of the store as a message names it: its path, or ``ARCHIVE: design.json``."""
        return f"{self.unpacked_from}: {path.name}" if self.unpacked_from else str(path)

    def recorded(self) -> dict[str, Any] | None:
        """What design.json says, or None. A store made before design.json existed has only
        ``study.json`` with its base seed: that is returned as ``{"design": {"base_seed"}}``."""
        for path, wrap in ((self.design_file, False), (self.root / "study.json", True)):
            try:
                data = json.loads(path.read_text())
            except FileNotFoundError:
                continue
            except (OSError, ValueError) as e:
                raise StoreError(
                    f"{self._named(path)}: unreadable ({e}); allowed: the file satsweep wrote"
                ) from None
            data = {"design": data} if wrap else data
            if problem := _shape_problem(data, _SHAPE):
                raise StoreError(f"{self._named(path)}: {problem}, as satsweep writes it")
            return data
        return None

    @staticmethod
    def _streams(recorded: dict[str, Any] | None) -> int | None:
        """How the runs of a recorded design (:meth:`recorded`) got their numbers
        (``streams``): 1 for a store recorded before ``streams`` existed, None for no design."""
        if recorded is None:
            return None
        return recorded.get("design", {}).get("streams", 1)

    @staticmethod
    def _stream_options(recorded: dict[str, Any] | None, program: str) -> dict[str, Any]:
        """The stream options of the adapter of a recorded design of ``program``
        (``omnetpp_seeds``: how the runs got their random streams), each as recorded, else its
        value for a store recorded before it existed; none for no design, another program
        (refused by its name) or a program without an adapter."""
        made = (recorded or {}).get("design", {})
        adapter = find_adapter(made.get("program"))
        if adapter is None or made.get("program") != program:
            return {}
        return {k: made.get(k, before) for k, (_, before) in adapter.stream_options.items()}

    def bind(self, design: Design) -> Design:
        """``design`` as this store's runs need it: a design file that does not set
        ``streams`` takes the store's (an existing store keeps its run numbers), then
        :meth:`check`, and a run found in the store must have the run number the design gives
        it (:meth:`sampled_run`): a store whose design.json is gone keeps its runs' base_seed
        and streams. Use it wherever a design meets its store."""
        recorded = self.recorded()
        sample = self.sampled_run()
        if recorded is None and sample is not None:
            made = self._made_with(sample)
            if made is not None:  # design.json is gone: the runs say how they were made
                recorded = {"design": made}
        keep = {
            key: stored
            for key, stored in self._stream_options(recorded, design.program).items()
            if key not in design.adapter_options and stored != design.stream_option(key)
        }
        if keep:  # the store's runs keep their random streams
            bound = design.with_options(**keep)
            clash = bound.stream_clash()
            if clash is not None:
                raise DesignError(f"{design.source}: {clash}")
            design = bound
        streams = self._streams(recorded)
        if (
            streams is not None
            and streams != design.streams
            and "streams" not in (design.model_fields_set)
        ):
            bound = design.model_copy(update={"streams": streams})
            clash = bound.stream_clash()
            if clash is not None:
                raise DesignError(f"{design.source}: {clash}")
            design = bound
        self._check(design, recorded)
        if sample is not None:
            cid, k, made = sample["config_id"], sample["replication"], sample["run"]
            expected = rng_run(design.base_seed, cid, k, design.streams)
            if made != expected:
                seed = f" (base_seed {sample['seed']})" if sample["seed"] is not None else ""
                raise DesignError(
                    f"base_seed: {design.base_seed} with streams {design.streams} gives run "
                    f"{cid}/r{k} --run={expected}, but the run in {self.root} was made with "
                    f"--run={made}{seed}; allowed: the base_seed and streams its runs were made "
                    f"with, or another study name (or remove {self.root})"
                )
        return design

    def sampled_run(self) -> dict[str, Any] | None:
        """One run found in runs/ (the first with a record or a run row), as it was made:
        ``config_id``, ``replication``, ``run`` (its --run) and ``seed`` (its base_seed, None
        when unknown), from its record or, for a record without them, its run row. None for
        a store without runs. Cheap: runs/ is listed, then it stops at the first (in the order
        of config_id and replication, so that every caller sees the same run)."""
        for cid in sorted(filter(_CONFIG_ID.fullmatch, self.configurations_with_files())):
            found = self.replications_with_files(cid, MAX_REPLICATIONS)
            for k in sorted(k for k, suffixes in found.items() if suffixes & FINISHED):
                made = self._made(self.run_dir(cid), k)
                if made is not None:
                    return {"config_id": cid, "replication": k, **made}
        for cid, folded in sorted(self.folded_runs().items()):  # no run has files of its own
            for k in sorted(folded):
                record = self.folded_record(cid, k)
                made = None if record is None else record.get("run")
                if type(made) is int:
                    seed = record.get("seed")
                    return {"config_id": cid, "replication": k, "run": made,
                            "seed": seed if type(seed) is int else None}  # fmt: skip
        return None

    @staticmethod
    def _made(run_dir: Path, k: int) -> dict[str, Any] | None:
        """``run`` and ``seed`` of replication k in ``run_dir``, as its record says, else as
        its run row says; None without a run number."""
        try:
            record = json.loads((run_dir / run_file_name(k, RECORD)).read_text())
        except (OSError, ValueError):
            record = None
        record = record if isinstance(record, dict) else {}
        number, seed = record.get("run"), record.get("seed")
        row = run_dir / run_file_name(k)
        if type(number) is not int:  # a record of before run numbers were kept: the row's
            number = row_value(row, "run")
        if type(seed) is not int:
            seed = row_value(row, "seed")
        if type(number) is not int:
            return None
        return {"run": number, "seed": seed if type(seed) is int else None}

    @staticmethod
    def _made_with(sample: dict[str, Any]) -> dict[str, int] | None:
        """The base_seed and streams a run (:meth:`sampled_run`) was made with, as design.json
        records them, or None when its run number does not tell."""
        seed = sample["seed"]
        if seed is None:
            return None
        for streams in (2, 1):
            if rng_run(seed, sample["config_id"], sample["replication"], streams) == sample["run"]:
                return {"base_seed": seed, "streams": streams}
        return None

    def check(self, design: Design) -> None:
        """Refuses a design whose runs cannot share this store: another base_seed or
        ``streams`` (other random streams), another program or program version than the runs
        in it were made with, or the same program and version whose defaults or description
        (:meth:`Description.changes_since`) changed since."""
        self._check(design, self.recorded())

    def _check(self, design: Design, recorded: dict[str, Any] | None) -> None:
        """:meth:`check` against ``recorded`` (:meth:`recorded`, read once)."""
        seed = (recorded or {}).get("design", {}).get("base_seed")
        if seed is not None and seed != design.base_seed:
            raise DesignError(
                f"base_seed: {design.base_seed} differs from the base_seed {seed} of the runs "
                f"in {self.root}; allowed: {seed}, or another study name (or remove {self.root})"
            )
        streams = self._streams(recorded)
        if streams is not None and streams != design.streams:
            raise DesignError(
                f"streams: {design.streams} differs from the streams {streams} of the runs in "
                f"{self.root}; allowed: {streams} (or leave streams out), or another study name"
            )
        for key, stored in self._stream_options(recorded, design.program).items():
            if stored != (given := design.stream_option(key)):
                raise DesignError(
                    f"{key}: {given} differs from the {key} {stored} of the runs in "
                    f"{self.root}; allowed: {stored} (or leave {key} out), or another study name"
                )
        made = (recorded or {}).get("design", {}).get("simulators")
        for level, simulator in (design.simulators or {}).items():  # each one's streams
            stored = made.get(level) if isinstance(made, dict) else None
            adapter = find_adapter(simulator.program)
            if adapter is None or not isinstance(stored, dict):
                continue
            given = simulator.resolved()
            for key in adapter.stream_options:
                if key in stored and stored[key] != given.get(key):
                    raise DesignError(
                        f"simulators.{level}.{key}: {given.get(key)} differs from the {key} "
                        f"{stored[key]} of the runs in {self.root}; allowed: {stored[key]}, or "
                        "another study name"
                    )
        described = (recorded or {}).get("describe", {})
        name = described.get("name")
        if name is not None and name != design.describe.name:
            raise DesignError(
                f"program: {design.describe.name} differs from the program {name} of the runs "
                f"in {self.root}; allowed: {name}, or another study name (or remove {self.root})"
            )
        version = described.get("version")
        if version is not None and version != design.describe.version:
            raise DesignError(
                f"program: {design.describe.name} {design.describe.version} is not the version "
                f"{version} the runs in {self.root} were made with, so new runs may not be like "
                "them; allowed: another study name for the new version, or the program the runs "
                "were made with (design.json names it)"
            )
        changed = self._changed_defaults(design, described)
        if changed:
            said = ", ".join(
                f"{n} {value_text(v)} -> {value_text(w)}" for n, (v, w) in changed.items()
            )
            raise DesignError(
                f"program: {design.describe.name}'s defaults changed since the runs in "
                f"{self.root} were made ({said}), so new runs would not be like them; allowed: "
                "another study name for the new defaults, or the program the runs were made "
                "with (design.json names it)"
            )
        # the same name and version, another description: columns retyped, added or dropped
        changed = design.describe.changes_since(described) if described else []
        if changed:
            raise DesignError(
                f"program: {design.describe.name} {design.describe.version}'s description "
                f"changed since the runs in {self.root} were made ({'; '.join(changed)}), so new "
                "runs would not be stored like them; allowed: a new version of the program (under "
                "another study name), or the program the runs were made with (design.json names "
                "it)"
            )

    @staticmethod
    def _changed_defaults(design: Design, described: dict[str, Any]) -> dict[str, tuple[Any, Any]]:
        """The parameters the design leaves to the program whose default differs from the one
        in ``described`` (the recorded ``--describe`` of the store's runs): name -> (recorded
        default, current default). A parameter the recorded program did not have counts too,
        with ``"(none)"`` as its recorded default: the runs were made without it, whatever
        behaviour its default now selects."""
        if not described:
            return {}
        parameters = described.get("parameters") or []
        before = {p.get("name"): p.get("default") for p in parameters if isinstance(p, dict)}
        set_by_design = set(design.parameters())
        return {
            p.name: (before.get(p.name, "(none)"), p.default)
            for p in design.describe.parameters
            if p.name not in set_by_design and (p.name not in before or before[p.name] != p.default)
        }

    def other_builds(self, design: Design, state: State | None = None) -> dict[str, int]:
        """The runs in this store made by another identity of the program than ``design``'s
        (its sha256: the binary, or what an adapter hashes) when its name and version are the
        recorded ones (a rebuilt or edited program whose version did not change, with the same
        description, else :meth:`check` refuses it): how many per sha256, in its order. The
        compacted runs count by runs.parquet's program_sha256; the done runs of ``state`` (the
        design's, when the caller has it) that it does not hold yet, under the sha256
        design.json records (the program of the last sweep, which made them). The caller
        names them: their results may not be what the program gives now.

        Cheap where one identity made every compacted run: the table's footer says so
        (:func:`~satsweep.store.footer.column_range`), and pyarrow is imported only to count
        the runs of several."""
        recorded = self.recorded() or {}
        described = recorded.get("describe", {})
        now = design.describe
        if described.get("name") != now.name or described.get("version") != now.version:
            return {}  # a new store, say: no pyarrow to import before its sweep starts
        made: Counter[str] = Counter(self._identities())
        compacted = sum(made.values())
        made.pop("", None)  # rows that name no identity: none to compare
        last = recorded.get("program", {}).get("sha256")
        if state is not None and len(state.done) > compacted and isinstance(last, str) and last:
            made[last] += len(state.done) - compacted
        ours = design.executable.identities  # crossed: each simulator's own too
        return {h: made[h] for h in sorted(made) if h not in ours}

    def _identities(self) -> dict[str, int]:
        """runs.parquet's rows by program_sha256 ("" for a row without one); none without
        the table (or a table that does not read: :meth:`compaction_problem` names it)."""
        found = column_range(self.runs_table, "program_sha256")
        if found is not None and found.low == found.high:
            # one identity (or none) for every row: the footer tells, without pyarrow
            rows = found.rows - found.nulls
            one = {found.low.decode(errors="replace"): rows} if found.low is not None else {}
            return {**one, **({"": found.nulls} if found.nulls else {})}
        if not self.runs_table.is_file():
            return {}
        import pyarrow as pa
        import pyarrow.parquet as pq

        try:
            column = read_columns(self.runs_table, ["program_sha256"]).column(0)
        except KeyError:  # a table of before the column: its rows name no identity
            return {"": pq.read_metadata(self.runs_table).num_rows}
        except (OSError, pa.ArrowException):
            return {}
        counts = column.value_counts().to_pylist()
        return {c["values"] or "": c["counts"] for c in counts}

    def record(self, design: Design) -> None:
        """Checks ``design`` (:meth:`check`) and writes it into design.json."""
        self.check(design)
        program = design.executable
        write_json(
            self.design_file,
            {
                "study": design.study,
                "design": design.resolved(),
                "sha256": design.sha256(),
                # where the design file is: `satsweep run STUDY` runs it again by the name
                **({"source": str(design.source)} if design._source is not None else {}),
                "program": {"path": str(program.path), "sha256": program.sha256},
                # a crossed design's programs, by simulator (verify finds them by it)
                **(
                    {
                        "simulators": {
                            level: {"path": str(p.path), "sha256": p.sha256}
                            for level, p in zip(design.simulators, program.programs())
                        }
                    }
                    if design.simulators is not None
                    else {}
                ),  # fmt: skip
                # a theory given as a file: where the report finds it
                **({"theory": {"path": str(f)}} if (f := design.theory_file) else {}),
                "describe": program.description.model_dump(mode="json"),
                "satsweep_version": satsweep.__version__,
                "recorded_at": dt.datetime.now(dt.UTC).isoformat(timespec="seconds"),
            },
        )

    def round(self, design: Design) -> Design:
        """A precision campaign's ``design`` at the round this store recorded last (design.json:
        its r and, over configurations, the configurations' own, within min..max; the runs'
        length, for a campaign that may grow it, within the design's own..max_length); at min
        for a store without one; any other design as it is. Where `satsweep run` left a
        campaign, the Snakefile, its jobs, `plan`, `status` and `submit` take it up."""
        p = design.precision
        if p is None:
            return design
        recorded = (self.recorded() or {}).get("design", {})
        name, start = design.length_parameter, design.run_length
        made = (recorded.get("fixed") or {}).get(name) if name is not None else None
        number = isinstance(made, int | float) and not isinstance(made, bool)
        if number and start is not None and p.max_length is not None and start < made:
            design = design.with_length(min(made, p.max_length))  # a round that grew the runs

        def within(r: object) -> int:
            return max(p.min, min(p.max, r)) if isinstance(r, int) else p.min

        r = within(recorded.get("replications"))
        of = recorded.get("replications_of")
        of = {cid: within(k) for cid, k in of.items()} if isinstance(of, dict) and of else {}
        if of and p.over == "effects":  # was over configurations: balanced, no run left out
            return design.with_replications(max(r, *of.values()))
        if of:  # the configurations this design still has
            ids = {c.config_id for c in design.iter_configurations()}
            of = {cid: k for cid, k in of.items() if cid in ids}
        return design.with_replications(r, of)

    def design(self) -> Design | None:
        """The design recorded in design.json, with the recorded program's description (the
        program itself need not exist here), or None for a store without one."""
        recorded = self.recorded()
        if recorded and "describe" not in recorded and self.design_file.is_file():
            # every design.json satsweep wrote has it (only study.json, before it, had not)
            raise StoreError(f"{self._named(self.design_file)}: describe: missing; allowed: the "
                             "program's --describe, as satsweep run records it")  # fmt: skip
        if not recorded or "describe" not in recorded:
            return None
        wrote = f"{self._named(self.design_file)}: not a design satsweep wrote"
        try:
            # a store recorded before streams 2 and an adapter's stream options made its
            # runs the old way
            made = recorded["design"]
            old = {"streams": 1, **self._stream_options(recorded, made.get("program"))}
            design = Design.model_validate({**old, **recorded["design"]})
        except ValidationError as e:  # one line, not pydantic's dump
            raise StoreError(f"{wrote}: design.{first_problem(e)}") from None
        except ValueError as e:
            raise StoreError(f"{wrote}: design: {' '.join(str(e).split())}") from None
        try:
            describe = Description.model_validate(recorded["describe"])
        except ValidationError as e:
            where = ".".join(["describe", *map(str, e.errors()[0]["loc"])])
            raise StoreError(f"{wrote}: {where}: {validation_message(e)}") from None
        program = recorded.get("program", {})
        design._executable = Program(Path(program.get("path", "")), program.get("sha256"), describe)
        members = recorded.get("simulators")
        if design.simulators is not None and isinstance(members, dict):
            # a crossed design's programs as recorded: their identities (each with the
            # merged description: their own are not recorded)
            design._executable = Crossed(
                design._executable.path, design._executable.sha256, describe,
                members={level: Program(Path(str(p.get("path", ""))), str(p.get("sha256")), describe)
                         for level, p in members.items() if isinstance(p, dict)},
            )  # fmt: skip
        return design
