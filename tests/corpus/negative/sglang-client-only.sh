#!/bin/bash
# talks to a server started elsewhere: nothing here serves a model
pip install "sglang==0.4.6.post1" openai
python3 -m sglang.check_env
python3 - <<'PY'
import openai
client = openai.Client(base_url="http://127.0.0.1:30000/v1", api_key="None")
print(client.models.list())
PY
