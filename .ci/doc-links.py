#!/usr/bin/env python3
"""Every relative link and image in the README and the Markdown under docs/, packaging/ and
benches/ points to a file that exists, and every #anchor to a heading of its file (GitHub's
slugs). Run from the repository's root: python3 .ci/doc-links.py"""
import glob, os, re, sys

def slug(heading):
    s = re.sub(r'[`*_]', '', heading.strip().lower())
    s = re.sub(r'\]\([^)]*\)', '', s).replace('[', '')
    s = re.sub(r'[^\w\- ]', '', s)
    return s.replace(' ', '-')

def anchors(path):
    found, fenced = set(), False
    for line in open(path, encoding='utf-8'):
        if line.startswith('```'):
            fenced = not fenced
        elif not fenced and line.startswith('#'):
            found.add(slug(line.lstrip('#')))
    return found

files = ['README.md'] + sorted(glob.glob('docs/*.md') + glob.glob('packaging/**/*.md', recursive=True)
                               + glob.glob('benches/*.md'))
bad, checked = [], 0
for path in files:
    fenced = False
    for number, line in enumerate(open(path, encoding='utf-8'), 1):
        if line.lstrip().startswith('```'):
            fenced = not fenced
            continue
        if fenced:
            continue
        for target in re.findall(r'\]\(([^)\s]+)\)', re.sub(r'`[^`]*`', '', line)):
            if re.match(r'[a-z]+:', target):
                continue
            checked += 1
            file, _, anchor = target.partition('#')
            resolved = os.path.normpath(os.path.join(os.path.dirname(path), file)) if file else path
            if not os.path.exists(resolved):
                bad.append(f'{path}:{number}: {target}: no {resolved}')
            elif anchor and resolved.endswith('.md') and anchor not in anchors(resolved):
                bad.append(f'{path}:{number}: {target}: no heading #{anchor} in {resolved}')
print('\n'.join(bad))
print(f'{checked} links in {len(files)} files; {len(bad)} broken')
sys.exit(1 if bad else 0)
