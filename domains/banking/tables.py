"""The banking tables, on the domain's own registry.

Each table is a plain field model (what the World hands back) beside the table class. Full
card and account numbers are stored here; no tool ever returns them unmasked.
"""

from __future__ import annotations

import datetime as dt

from sqlalchemy.orm import registry
from sqlmodel import Field, SQLModel


class BankingTable(SQLModel, registry=registry()):
    pass


class ProductBase(SQLModel):
    product_id: str = Field(primary_key=True)
    name: str
    kind: str  # checking | savings | credit_card | personal_loan | auto_loan
    monthly_fee: float
    interest_rate: float  # percent a year: paid on savings, charged on cards and loans
    overdraft_fee: float
    foreign_fee_pct: float
    atm_fee: float
    minimum_balance: float
    replacement_card_fee: float


class Product(ProductBase, BankingTable, table=True):
    __tablename__ = "product"


class CustomerBase(SQLModel):
    customer_id: str = Field(primary_key=True)
    full_name: str
    email: str
    phone: str = Field(index=True)  # registered phone, like 415-555-0123
    date_of_birth: dt.date
    id_last4: str  # last four digits of the government id number
    security_answer: str
    address: str


class Customer(CustomerBase, BankingTable, table=True):
    __tablename__ = "customer"


class AccountBase(SQLModel):
    account_id: str = Field(primary_key=True)
    customer_id: str = Field(index=True)
    product_id: str
    kind: str  # checking | savings | credit_card
    number: str  # full account number: stored, never shown
    nickname: str = ""  # set by the customer in the app
    balance: float  # for a credit card: the amount owed
    credit_limit: float = 0.0
    status: str = "active"  # active | frozen
    opened: dt.date


class Account(AccountBase, BankingTable, table=True):
    __tablename__ = "account"


class CardBase(SQLModel):
    card_id: str = Field(primary_key=True)
    account_id: str = Field(index=True)
    customer_id: str = Field(index=True)
    brand: str  # Visa | Mastercard
    number: str  # full card number: stored, never shown
    status: str = "active"  # active | frozen | lost | replaced
    daily_limit: float
    replaces: str | None = None  # the card this one replaced


class Card(CardBase, BankingTable, table=True):
    __tablename__ = "card"


class TransactionBase(SQLModel):
    txn_id: str = Field(primary_key=True)
    account_id: str = Field(index=True)
    posted: dt.date
    merchant: str
    category: str
    amount: float  # positive: money out; negative: money in
    memo: str = ""


class Transaction(TransactionBase, BankingTable, table=True):
    __tablename__ = "txn"


class PayeeBase(SQLModel):
    payee_id: str = Field(primary_key=True)
    customer_id: str = Field(index=True)
    name: str
    bank: str
    account_number: str  # stored, never shown
    added_at: dt.datetime


class Payee(PayeeBase, BankingTable, table=True):
    __tablename__ = "payee"


class TransferBase(SQLModel):
    transfer_id: str = Field(primary_key=True)
    customer_id: str = Field(index=True)
    from_account: str
    to_account: str | None = None  # an own account, or
    payee_id: str | None = None  # a payee
    amount: float
    made_at: dt.datetime


class Transfer(TransferBase, BankingTable, table=True):
    __tablename__ = "transfer"


class ScheduledTransferBase(SQLModel):
    schedule_id: str = Field(primary_key=True)
    customer_id: str = Field(index=True)
    from_account: str
    to_account: str
    amount: float
    run_on: dt.date
    status: str = "scheduled"  # scheduled | cancelled


class ScheduledTransfer(ScheduledTransferBase, BankingTable, table=True):
    __tablename__ = "scheduled_transfer"


class DisputeBase(SQLModel):
    dispute_id: str = Field(primary_key=True)
    txn_id: str = Field(index=True)
    customer_id: str
    reason: str
    opened: dt.date
    status: str = "open"


class Dispute(DisputeBase, BankingTable, table=True):
    __tablename__ = "dispute"


class LoanBase(SQLModel):
    loan_id: str = Field(primary_key=True)
    customer_id: str = Field(index=True)
    product_id: str
    principal: float
    balance: float
    monthly_payment: float
    next_due: dt.date


class Loan(LoanBase, BankingTable, table=True):
    __tablename__ = "loan"


class StatementRequestBase(SQLModel):
    request_id: str = Field(primary_key=True)
    account_id: str
    month: str  # YYYY-MM
    delivery: str  # email | post


class StatementRequest(StatementRequestBase, BankingTable, table=True):
    __tablename__ = "statement_request"


class FraudCaseBase(SQLModel):
    case_id: str = Field(primary_key=True)
    customer_id: str
    reason: str
    txn_id: str | None = None


class FraudCase(FraudCaseBase, BankingTable, table=True):
    __tablename__ = "fraud_case"


class ArticleBase(SQLModel):
    article_id: str = Field(primary_key=True)
    title: str
    body: str


class Article(ArticleBase, BankingTable, table=True):
    __tablename__ = "kb_article"


ALL_TABLES = [
    Product, Customer, Account, Card, Transaction, Payee, Transfer, ScheduledTransfer, Dispute, Loan,
    StatementRequest, FraudCase, Article,
]  # fmt: skip
