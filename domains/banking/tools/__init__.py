"""The banking tools: reads (`reads.py`), money movements (`money.py`), cards and service (`service.py`)."""

from .money import (
    add_payee,
    cancel_scheduled_transfer,
    make_loan_payment,
    pay_payee,
    schedule_transfer,
    transfer_between_accounts,
)
from .reads import (
    get_account_details,
    list_accounts,
    list_cards,
    list_loans,
    list_payees,
    list_recent_transfers,
    list_scheduled_transfers,
    read_article,
    search_kb,
    search_transactions,
    verify_identity,
)
from .service import (
    freeze_card,
    open_dispute,
    report_card_lost,
    request_statement,
    set_card_daily_limit,
    transfer_to_human,
    unfreeze_card,
    update_contact_details,
)

ALL_TOOLS = [
    verify_identity, list_accounts, get_account_details, search_transactions, list_cards, list_payees,
    list_scheduled_transfers, list_loans, list_recent_transfers, search_kb, read_article,
    transfer_between_accounts, pay_payee, add_payee, schedule_transfer, cancel_scheduled_transfer, make_loan_payment,
    freeze_card, unfreeze_card, report_card_lost, set_card_daily_limit, open_dispute, request_statement,
    update_contact_details, transfer_to_human,
]  # fmt: skip
