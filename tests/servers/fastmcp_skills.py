"""FastMCP 4.2.3's SkillsDirectoryProvider over stdio: an independent Skills server.

python tests/servers/fastmcp_skills.py SKILLS_DIR
"""

import sys

from fastmcp import FastMCP
from fastmcp.skills.provider import SkillsDirectoryProvider

server = FastMCP("fastmcp-skills")
server.add_provider(SkillsDirectoryProvider(sys.argv[1]))
server.run(show_banner=False)
