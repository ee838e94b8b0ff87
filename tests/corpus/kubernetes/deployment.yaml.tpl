apiVersion: apps/v1
kind: Deployment
metadata:
  name: ${NAME}
spec:
  replicas: 1
  selector:
    matchLabels: {app: "${NAME}"}
  template:
    metadata:
      labels: {app: "${NAME}"}
    spec:
      containers:
        - name: vllm
          image: vllm/vllm-openai:v0.11.0
          args: ["--model", "${MODEL}", "--max-model-len", "8192"]
          resources:
            limits:
              nvidia.com/gpu: 1
