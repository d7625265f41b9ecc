"""The maintenance stage: the forgetting pass and the summary hierarchy (daily, weekly, global)."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import UTC, date, datetime, time, timedelta
from typing import Any

from langchain_core.runnables import RunnableConfig
from qdrant_client import models as qm

from langgraph_prax_memory._validation import utcnow
from langgraph_prax_memory.consolidation._base import (
    MAX_SUMMARY_DAYS,
    MAX_SUMMARY_WEEKS,
    ConsolidatorBase,
    _State,
    logger,
)
from langgraph_prax_memory.consolidation._models import (
    ConsolidationResult,
)
from langgraph_prax_memory.consolidation._summary import (
    summarise_day,
    summarise_global,
    summarise_week,
    week_label,
)
from langgraph_prax_memory.consolidation._supersession import mark_superseded
from langgraph_prax_memory.models import Memory
from langgraph_prax_memory.retrieval import ltm_filter, validity_filter
from langgraph_prax_memory.vectors import user_filter

#: Payload key of a summary: the ids of the memories (or lower summaries) it was built from.
SUMMARY_OF = "summary_of"


class MaintainStage(ConsolidatorBase):
    """The maintenance stage: the forgetting pass and the summary hierarchy."""

    def node_decay(self, state: _State, config: RunnableConfig) -> dict[str, Any]:
        result = state["result"].model_copy(deep=True)
        user_id = state["user_id"]
        now = state["run_now"]
        st = self.states.load(user_id)
        last = st.last_decay_run
        if last is not None and now - last < self.decay_interval:
            return {"result": result}
        try:
            victims = self.parts.ltm.decay(user_id, now=now)
            pruned = self.parts.graph.decay_graph(user_id, now=now)
        except Exception as exc:
            logger.error("decay pass of %r failed (%s); it will run again next time", user_id, exc)
            result.errors.append(f"decay: {exc}")
            return {"result": result}
        result.decay_ran = True
        result.memories_decayed = len(victims)
        result.entities_decayed = len(pruned.entities)
        result.relations_decayed = len(pruned.relations)
        st.last_decay_run = now
        self.states.save(user_id, st)
        return {"result": result}

    def node_summary(self, state: _State, config: RunnableConfig) -> dict[str, Any]:
        result = state["result"].model_copy(deep=True)
        user_id = state["user_id"]
        now = state["run_now"]
        today = now.astimezone(self.timezone).date()
        st = self.states.load(user_id)
        last_day = st.last_run_day
        if last_day is None or today <= last_day:
            if last_day is None:
                st.last_run_day = today
                self.states.save(user_id, st)
            return {"result": result}
        try:
            done = self._summaries(user_id, last_day, today, result)
            weeks = self._weekly_summaries(user_id, st.last_summary_week, today, result)
            if weeks:
                self._global_summary(user_id, now, result)
        except Exception as exc:
            logger.error("summaries of %r failed (%s); retried next run", user_id, exc)
            result.errors.append(f"summary: {exc}")
            return {"result": result}
        st = self.states.load(user_id)
        st.last_run_day = today
        if done:
            st.last_summary_day = max(done)
        if weeks:
            st.last_summary_week = max(weeks)
        self.states.save(user_id, st)
        return {"result": result}

    def _day_bounds(self, day: date) -> tuple[datetime, datetime]:
        start = datetime.combine(day, time.min, tzinfo=self.timezone)
        return start.astimezone(UTC), (start + timedelta(days=1)).astimezone(UTC)

    def _current(self, user_id: str, *conditions: Any, levels: Sequence[str]) -> qm.Filter:
        """Current (not superseded) LTM points of the given summary levels."""
        base = validity_filter(ltm_filter(user_id))
        level = qm.FieldCondition(key="summary_level", match=qm.MatchAny(any=list(levels)))
        return qm.Filter(must=[*(base.must or []), level, *conditions], must_not=base.must_not)  # type: ignore[misc]

    def _write_summary(
        self,
        user_id: str,
        text: str,
        *,
        level: str,
        key: str,
        importance: float,
        at: datetime,
        built_from: Sequence[Memory] = (),
    ) -> None:
        """Store one summary addressed by its key (a re-run replaces it, never duplicates).

        ``summary_of`` in its payload lists the ids of the memories (or summaries) it was
        built from, so retiring one of them rebuilds it (:meth:`_rebuild_summaries`).
        """
        ids = self.parts.ltm.remember_many(
            user_id,
            [
                {
                    "content": text[: self.parts.config.max_content_chars],
                    "importance": min(1.0, max(0.0, importance)),
                    "tags": [f"{level}_summary", "consolidation"],
                    "source": "consolidation",
                    "created_at": at.isoformat(),
                    "key": key,
                    "summary_level": level,
                }
            ],
        )
        if ids:
            sources = sorted({m.id for m in built_from})
            self.parts.ltm.vectors.set_payload(user_id, ids, {SUMMARY_OF: sources})

    def _summaries(
        self, user_id: str, first: date, today: date, result: ConsolidationResult
    ) -> list[date]:
        """Summarise each day in ``[first, today)`` that has current memories (the latest 7)."""
        lo, _ = self._day_bounds(first)
        hi, _ = self._day_bounds(today)
        flt = self._current(
            user_id,
            qm.FieldCondition(
                key="created_ts", range=qm.Range(gte=lo.timestamp(), lt=hi.timestamp())
            ),
            levels=["raw"],
        )
        by_day: dict[date, list[Memory]] = {}
        for point in self.parts.ltm.vectors.scroll(user_id, flt=flt, limit=10_000):
            mem = Memory.from_payload(point.id, point.payload)
            by_day.setdefault(mem.created_at.astimezone(self.timezone).date(), []).append(mem)
        done: list[date] = []
        for day in sorted(by_day)[-MAX_SUMMARY_DAYS:]:
            text = self._summarise_one_day(user_id, day, by_day[day])
            result.daily_summary = text
            result.daily_summary_days.append(day)
            done.append(day)
        return done

    def _summarise_one_day(self, user_id: str, day: date, memories: list[Memory]) -> str:
        text = summarise_day(day, memories, self.chat_model)
        _, end = self._day_bounds(day)
        self._write_summary(
            user_id,
            text,
            level="daily",
            key=f"daily_summary:{day.isoformat()}",
            importance=max(m.importance for m in memories),
            at=end - timedelta(seconds=1),
            built_from=memories,
        )
        return text

    def _week_end(self, label: str) -> datetime:
        year, week = label.split("-W")
        monday = date.fromisocalendar(int(year), int(week), 1)
        return self._day_bounds(monday + timedelta(days=7))[0]

    def _weekly_summaries(
        self, user_id: str, last_week: str | None, today: date, result: ConsolidationResult
    ) -> list[str]:
        """A summary per finished ISO week (after ``last_week``) built from its dailies."""
        this_week = week_label(today)
        monday = today - timedelta(days=today.weekday())
        hi, _ = self._day_bounds(monday)
        flt = self._current(
            user_id,
            qm.FieldCondition(key="created_ts", range=qm.Range(lt=hi.timestamp())),
            levels=["daily"],
        )
        by_week: dict[str, list[Memory]] = {}
        for point in self.parts.ltm.vectors.scroll(user_id, flt=flt, limit=10_000):
            mem = Memory.from_payload(point.id, point.payload)
            label = week_label(mem.created_at.astimezone(self.timezone).date())
            if label < this_week and (last_week is None or label > last_week):
                by_week.setdefault(label, []).append(mem)
        done: list[str] = []
        for label in sorted(by_week)[-MAX_SUMMARY_WEEKS:]:
            self._summarise_one_week(user_id, label, by_week[label])
            result.weekly_summary_weeks.append(label)
            done.append(label)
        return done

    def _summarise_one_week(self, user_id: str, label: str, dailies: list[Memory]) -> str:
        text = summarise_week(label, dailies, self.chat_model)
        self._write_summary(
            user_id,
            text,
            level="weekly",
            key=f"weekly_summary:{label}",
            importance=max(m.importance for m in dailies),
            at=self._week_end(label) - timedelta(seconds=1),
            built_from=dailies,
        )
        return text

    def _global_summary(self, user_id: str, now: datetime, result: ConsolidationResult) -> None:
        """The global summary, rebuilt from every current weekly summary."""
        weeklies = [
            Memory.from_payload(p.id, p.payload)
            for p in self.parts.ltm.vectors.scroll(
                user_id, flt=self._current(user_id, levels=["weekly"]), limit=10_000
            )
        ]
        if not weeklies:
            return
        text = summarise_global(weeklies, self.chat_model)
        self._write_summary(
            user_id,
            text,
            level="global",
            key="global_summary",
            importance=max(m.importance for m in weeklies),
            at=min(now, max(m.created_at for m in weeklies)),
            built_from=weeklies,
        )
        result.global_summary = True

    def _rebuild_summaries(
        self,
        user_id: str,
        marked: Sequence[Any],
        result: ConsolidationResult,
        *,
        retired: Sequence[str] = (),
    ) -> None:
        """Rebuild the summaries that included a retired fact, from what is still current.

        Which: the summaries ``marked`` (they named the superseded value), every summary
        whose ``summary_of`` lists a ``retired`` memory, and (for a daily summary written
        before ``summary_of`` existed) the summary of a retired memory's day. A day is
        re-summarised from its current memories, its week from the current dailies, then the
        global summary; a summary left with nothing current to be built from is marked
        superseded instead, so it leaves recall and never restates the retired fact.
        """
        points: dict[str, Any] = {str(p.id): p for p in marked}
        gone = self.parts.ltm.vectors.retrieve(user_id, list(retired)) if retired else []
        if retired:
            for point in self._summaries_of(user_id, retired):
                points.setdefault(str(point.id), point)
            for point in self._legacy_dailies(user_id, gone):
                points.setdefault(str(point.id), point)
        if not points:
            return
        # a summary left with nothing current ends when what it was built from ended
        ends = [
            float(p.payload["valid_until_ts"])
            for p in [*gone, *marked]
            if p.payload.get("valid_until_ts") is not None
        ]
        until = datetime.fromtimestamp(max(ends), UTC) if ends else utcnow()
        days: set[date] = set()
        weeks: set[str] = set()
        again_global = False
        for point in points.values():
            key = str(point.payload.get("key", ""))
            level = point.payload.get("summary_level")
            if level == "daily" and key.startswith("daily_summary:"):
                day = date.fromisoformat(key.split(":", 1)[1])
                days.add(day)
                weeks.add(week_label(day))
            elif level == "weekly" and key.startswith("weekly_summary:"):
                weeks.add(key.split(":", 1)[1])
            again_global = again_global or level in ("weekly", "global")
        for day in sorted(days):
            lo, hi = self._day_bounds(day)
            flt = self._current(
                user_id,
                qm.FieldCondition(
                    key="created_ts", range=qm.Range(gte=lo.timestamp(), lt=hi.timestamp())
                ),
                levels=["raw"],
            )
            memories = [
                Memory.from_payload(p.id, p.payload)
                for p in self.parts.ltm.vectors.scroll(user_id, flt=flt, limit=10_000)
            ]
            if memories:
                self._summarise_one_day(user_id, day, memories)
            else:
                self._retire_summary(user_id, f"daily_summary:{day.isoformat()}", until)
        for label in sorted(weeks):
            if not self._has_key(user_id, f"weekly_summary:{label}"):
                continue
            end = self._week_end(label)
            flt = self._current(
                user_id,
                qm.FieldCondition(
                    key="created_ts",
                    range=qm.Range(gte=(end - timedelta(days=7)).timestamp(), lt=end.timestamp()),
                ),
                levels=["daily"],
            )
            dailies = [
                Memory.from_payload(p.id, p.payload)
                for p in self.parts.ltm.vectors.scroll(user_id, flt=flt, limit=10_000)
            ]
            if dailies:
                self._summarise_one_week(user_id, label, dailies)
            else:
                self._retire_summary(user_id, f"weekly_summary:{label}", until)
            again_global = True
        if (again_global or weeks) and self._has_key(user_id, "global_summary"):
            if self.parts.ltm.vectors.scroll(
                user_id, flt=self._current(user_id, levels=["weekly"]), limit=1
            ):
                self._global_summary(user_id, utcnow(), result)
            else:
                self._retire_summary(user_id, "global_summary", until)

    def _summaries_of(self, user_id: str, ids: Sequence[str]) -> list[Any]:
        """The summaries (any level) built from one of ``ids``."""
        flt = user_filter(
            user_id,
            *(ltm_filter(user_id).must or []),  # type: ignore[arg-type]
            qm.FieldCondition(key=SUMMARY_OF, match=qm.MatchAny(any=list(ids))),
        )
        return self.parts.ltm.vectors.scroll(user_id, flt=flt, limit=10_000)

    def _legacy_dailies(self, user_id: str, gone: Sequence[Any]) -> list[Any]:
        """Daily summaries of the days of ``gone`` written before ``summary_of`` existed."""
        out: list[Any] = []
        keys: set[str] = set()
        for point in gone:
            created = point.payload.get("created_ts")
            if created is None or point.payload.get("summary_level", "raw") != "raw":
                continue
            day = datetime.fromtimestamp(float(created), UTC).astimezone(self.timezone).date()
            keys.add(f"daily_summary:{day.isoformat()}")
        for key in sorted(keys):
            flt = user_filter(
                user_id,
                *(ltm_filter(user_id).must or []),  # type: ignore[arg-type]
                qm.FieldCondition(key="key", match=qm.MatchValue(value=key)),
            )
            out += [
                p
                for p in self.parts.ltm.vectors.scroll(user_id, flt=flt, limit=1)
                if SUMMARY_OF not in p.payload
            ]
        return out

    def _retire_summary(self, user_id: str, key: str, until: datetime) -> None:
        """Mark the summary under ``key`` superseded (nothing current is left to build it)."""
        flt = user_filter(
            user_id,
            *(ltm_filter(user_id).must or []),  # type: ignore[arg-type]
            qm.FieldCondition(key="key", match=qm.MatchValue(value=key)),
        )
        found = [
            p.id
            for p in self.parts.ltm.vectors.scroll(user_id, flt=flt, limit=1)
            if p.payload.get("valid_until") is None
        ]
        if found:
            mark_superseded(self.parts, user_id, found, until, None)
            logger.info("summary %s of %r has nothing current left: marked", key, user_id)

    def _has_key(self, user_id: str, key: str) -> bool:
        flt = user_filter(
            user_id,
            *(ltm_filter(user_id).must or []),  # type: ignore[arg-type]
            qm.FieldCondition(key="key", match=qm.MatchValue(value=key)),
        )
        return bool(self.parts.ltm.vectors.scroll(user_id, flt=flt, limit=1))
