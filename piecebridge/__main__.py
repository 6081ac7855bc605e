from piecebridge.cli import main

raise SystemExit(main())
