"""Delivery of a window's report to where the team reads it: Slack, Feishu (Lark), DingTalk, a
generic signed webhook and e-mail. `dispatch.deliver` sends to every configured target, records
each delivery in the store and never lets one failed target stop the others."""
