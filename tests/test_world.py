import pytest

from tests.toy import Account, AccountBase, Note, sneaky_read
from toolgym.envs.world import World, format_hash
from toolgym.errors import DomainError, ToolError


@pytest.fixture
def world(toy_domain):
    w = toy_domain.new_world(seed=0, size="small")
    yield w
    w.close()


def test_reads_return_plain_models(world):
    account = world.get(Account, "A001")
    assert type(account) is AccountBase
    assert account.email == "user1@example.com" and account.balance == 101.0
    assert world.get(Account, "nope") is None
    assert [a.id for a in world.select(Account, {"status": "active"}, limit=2)] == ["A000", "A001"]
    assert world.count(Account) == 5


def test_episodes_are_isolated_copies(toy_domain, world):
    world.update(Account, "A001", status="closed")
    other = toy_domain.new_world(seed=0, size="small")
    assert other.get(Account, "A001").status == "active"
    assert other.state_hash() != world.state_hash()


def test_a_closed_episode_gives_its_connection_back_holding_the_built_world(toy_domain):
    first = toy_domain.new_world(seed=0, size="small")
    connection = first.conn
    first.update(Account, "A001", status="closed")
    first.insert(Note, {"id": 7, "account_id": "A000", "text": "x"})
    assert first.new_id("ticket") == 1
    first.close()
    second = toy_domain.new_world(seed=0, size="small")
    assert second.conn is connection  # reused: its writes were rolled back, no copy of the image made
    assert second.get(Account, "A001").status == "active" and second.get(Note, 7) is None
    assert second.new_id("ticket") == 1
    assert second.state_hash() == format_hash(toy_domain.template(0, "small").state_hash)
    second.conn.execute("COMMIT")  # an episode whose transaction ended otherwise is not reused
    second.close()
    assert toy_domain.new_world(seed=0, size="small").conn is not connection


def test_hash_equal_for_equal_content_however_reached(toy_domain, world):
    start = world.state_hash()
    world.update(Account, "A001", status="closed", balance=5)
    world.update(Account, "A001", status="active")
    world.update(Account, "A001", balance=101)  # int given, stored as float: same content
    assert world.state_hash() == start
    assert not world.diff()

    a, b = toy_domain.new_world(seed=0, size="small"), toy_domain.new_world(seed=0, size="small")
    a.insert(Note, {"id": 1, "account_id": "A000", "text": "x"})
    a.update(Account, "A002", balance=1.5)
    b.update(Account, "A002", balance=1.5)
    b.insert(Note, {"id": 1, "account_id": "A000", "text": "x"})
    assert a.state_hash() == b.state_hash() != start


def test_hash_matches_a_freshly_built_world_with_the_same_rows(toy_domain, world):
    from toolgym.envs.world import WorldTemplate

    world.update(Account, "A003", status="closed")
    rows = [Account(**a.model_dump()) for a in world.select(Account)]
    rebuilt = WorldTemplate.build(domain="toy", seed=0, size="small", now=world.now, tables=[Account, Note], rows=rows)
    assert world.state_hash() == World(rebuilt).state_hash()


def test_diff_reports_added_removed_changed(world):
    world.update(Account, "A001", status="closed")
    world.insert(Note, {"id": 7, "account_id": "A001", "text": "hi"})
    world.delete(Account, "A004")
    diff = world.diff().to_dict()
    assert diff["changed"] == [
        {"table": "account", "key": ["A001"], "fields": {"status": {"before": "active", "after": "closed"}}}
    ]
    assert diff["added"][0]["row"]["text"] == "hi"
    assert diff["removed"][0]["key"] == ["A004"]


def test_failed_write_tool_leaves_no_trace(toy_domain, world):
    start = world.state_hash()
    close = toy_domain.tool("close_account")
    assert close.run(world, {"account_id": "A001", "reason": "moving"}).error is None
    after_close = world.state_hash()
    outcome = close.run(world, {"account_id": "A001", "reason": "moving"})
    assert "already closed" in outcome.error
    assert world.state_hash() == after_close != start
    assert len(world.changes) == 1


def test_rollback_undoes_partial_writes(world):
    mark = world.state_hash()
    with pytest.raises(ToolError):
        with world.tool_scope("t", writes=True):
            world.update(Account, "A001", status="closed")
            world.new_id("note")
            raise ToolError("late failure")
    assert world.state_hash() == mark and not world.changes
    assert world.get(Account, "A001").status == "active"
    with world.tool_scope("t", writes=True):
        assert world.new_id("note") == 1  # the counter was rolled back too


def test_read_tool_that_writes_is_a_domain_error(world):
    with pytest.raises(DomainError, match="sneaky_read.*writes=True"):
        sneaky_read.run(world, {"account_id": "A001"})


def test_ids_are_deterministic_per_episode(toy_domain):
    first, second = (toy_domain.new_world(seed=0, size="small") for _ in range(2))
    for w in (first, second):
        with w.tool_scope("t", writes=True):
            assert [w.new_id("n"), w.new_id("n"), w.new_id("m", start=100)] == [1, 2, 100]


def test_query_refuses_writes_and_bad_columns(world):
    assert world.query("SELECT COUNT(*) FROM account")[0][0] == 5
    with pytest.raises(DomainError, match="only reads"):
        world.query("DELETE FROM account")
    with pytest.raises(DomainError, match="no column 'colour'"):
        world.update(Account, "A001", colour="red")


def test_clock_is_fixed(world, toy_domain):
    assert world.now == toy_domain.now


def test_reads_restore_python_types():
    import datetime as dt
    import enum

    from sqlalchemy import JSON, Column
    from sqlalchemy.orm import registry
    from sqlmodel import Field, SQLModel

    from toolgym.envs.world import WorldTemplate

    class Base(SQLModel, registry=registry()):
        pass

    class Color(str, enum.Enum):
        red = "red"
        blue = "blue"

    class ThingBase(SQLModel):
        id: int = Field(primary_key=True)
        flag: bool
        when: dt.datetime
        day: dt.date | None = None
        color: Color
        tags: list[str] = Field(default_factory=list, sa_column=Column(JSON))

    class Thing(ThingBase, Base, table=True):
        pass

    now = dt.datetime(2025, 1, 1, 9, 30)
    template = WorldTemplate.build(
        domain="t", seed=0, size="s", now=now, tables=[Thing],
        rows=[Thing(id=1, flag=True, when=now, day=None, color=Color.blue, tags=["a", "b"])],
    )
    world = World(template)
    thing = world.get(Thing, 1)
    assert (thing.flag, thing.when, thing.day, thing.color, thing.tags) == (True, now, None, Color.blue, ["a", "b"])
    assert isinstance(thing.color, Color) and thing.flag is True
    with world.tool_scope("t", writes=True):
        updated = world.update(Thing, 1, flag=False, day=dt.date(2025, 2, 3), color="red")
    assert (updated.flag, updated.day, updated.color) == (False, dt.date(2025, 2, 3), Color.red)
    assert world.diff().changed[0]["fields"]["flag"] == {"before": 1, "after": 0}
