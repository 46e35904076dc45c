"""A store's recorded design (design.json): what its runs were made with, and the checks that
keep a design's runs like them (the same base_seed, streams, program, version, defaults and
description) wherever a design meets its store."""

from __future__ import annotations

import datetime as dt
import json
import re
from pathlib import Path
from typing import Any

import satsweep
from satsweep.design import MAX_REPLICATIONS, Design, DesignError, rng_run
from satsweep.engine import Description, Program, value_text
from satsweep.engine.adapters import adapter as find_adapter
from satsweep.store.files import write_json
from satsweep.store.layout import (
    FINISHED,
    RECORD,
    Layout,
    StoreError,
    read_columns,
    row_value,
    run_file_name,
)

#: A configuration's directory in runs/: its config_id.
_CONFIG_ID = re.compile(r"[0-9a-f]{12}")


class RecordedDesign(Layout):
    """A store's design.json: read, written, and checked against a design."""

    def recorded(self) -> dict[str, Any] | None:
        """What design.json says, or None. A store made before design.json existed has only
        ``study.json`` with its base seed: that is returned as ``{"design": {"base_seed"}}``."""
        for path, wrap in ((self.design_file, False), (self.root / "study.json", True)):
            try:
                data = json.loads(path.read_text())
            except FileNotFoundError:
                continue
            except (OSError, ValueError) as e:
                raise StoreError(f"{path}: unreadable ({e}); allowed: the file satsweep wrote")
            return {"design": data} if wrap else data
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

    def other_builds(self, design: Design) -> list[str]:
        """The sha256 of the program builds the runs in this store were made with (design.json
        and runs.parquet's program_sha256) that are not ``design``'s program, when its name and
        version are the recorded ones: a rebuilt program whose version did not change (with
        the same description, else :meth:`check` refuses it). Its new runs would come from
        another binary than the stored ones; the caller warns, naming both hashes."""
        recorded = self.recorded() or {}
        described = recorded.get("describe", {})
        now = design.describe
        if described.get("name") != now.name or described.get("version") != now.version:
            return []  # a new store, say: no pyarrow to import before its sweep starts
        import pyarrow as pa

        made = {recorded.get("program", {}).get("sha256")}
        try:  # the compacted runs: every build that made one
            column = read_columns(self.runs_table, ["program_sha256"]).column(0)
            made |= set(column.unique().to_pylist())
        except (OSError, KeyError, pa.ArrowException):
            pass  # no table yet, or one without the column (the record's hash still counts)
        ours = design.executable.sha256
        return sorted(h for h in made if isinstance(h, str) and h and h != ours)

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
                # a theory given as a file: where the report finds it
                **({"theory": {"path": str(f)}} if (f := design.theory_file) else {}),
                "describe": program.description.model_dump(mode="json"),
                "satsweep_version": satsweep.__version__,
                "recorded_at": dt.datetime.now(dt.UTC).isoformat(timespec="seconds"),
            },
        )

    def round(self, design: Design) -> Design:
        """A precision campaign's ``design`` at the round this store recorded last (design.json:
        its r and, over configurations, the configurations' own), within min..max; at min for
        a store without one; any other design as it is. Where `satsweep run` left a campaign,
        the Snakefile, its jobs, `plan`, `status` and `submit` take it up."""
        p = design.precision
        if p is None:
            return design
        recorded = (self.recorded() or {}).get("design", {})

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
        if not recorded or "describe" not in recorded:
            return None
        try:
            # a store recorded before streams 2 and an adapter's stream options made its
            # runs the old way
            made = recorded["design"]
            old = {"streams": 1, **self._stream_options(recorded, made.get("program"))}
            design = Design.model_validate({**old, **recorded["design"]})
            describe = Description.model_validate(recorded["describe"])
        except ValueError as e:
            raise StoreError(f"{self.design_file}: not a design satsweep wrote: {e}") from None
        program = recorded.get("program", {})
        design._executable = Program(Path(program.get("path", "")), program.get("sha256"), describe)
        return design
