from pytorch_insight.cli import main

main()
