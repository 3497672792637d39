"""The research tables: an offline web (pages and their links) and the world the pages describe.

`page` and `link` are what the tools read. `entity` and `attribute` are the ground truth the pages
were written from (who makes what, when a city was founded, which page states it); no tool reads
them: the generators use them to ask questions whose answers the pages hold.
"""

from __future__ import annotations

import datetime as dt

from sqlalchemy.orm import registry
from sqlmodel import Field, SQLModel


class ResearchTable(SQLModel, registry=registry()):
    pass


class PageBase(SQLModel):
    url: str = Field(primary_key=True)
    site: str
    title: str
    published: dt.date  # the page's date: of two pages that disagree, the newer one is current
    kind: str  # article | news | listing | mirror | blog
    subject_id: str = ""  # the entity the page is about ("" for a page about none in particular)
    body: str  # paragraphs separated by blank lines; every fact is stated once


class Page(PageBase, ResearchTable, table=True):
    __tablename__ = "page"


class LinkBase(SQLModel):
    id: int = Field(primary_key=True)
    source: str = Field(index=True)  # the url of the page the link is on
    target: str
    anchor: str  # the link's text as it appears in the body


class Link(LinkBase, ResearchTable, table=True):
    __tablename__ = "link"


class EntityBase(SQLModel):
    id: str = Field(primary_key=True)
    kind: str  # organisation | person | city | product | event
    name: str
    url: str  # its encyclopedia article


class Entity(EntityBase, ResearchTable, table=True):
    __tablename__ = "entity"


class AttributeBase(SQLModel):
    id: int = Field(primary_key=True)
    entity_id: str = Field(index=True)
    name: str  # founded | employees | headquarters | ...
    value: str  # as the page states it ("4,210", "12 March 1964"); an entity id for a relation
    page_url: str  # the page that states it
    part: int  # the part of that page (open_page cuts long pages) that holds the sentence
    current: bool = True  # False: an older page's value, contradicted by a newer one


class Attribute(AttributeBase, ResearchTable, table=True):
    __tablename__ = "attribute"
