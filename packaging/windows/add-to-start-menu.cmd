@echo off
rem Adds a Start-menu entry for this portable copy of PSEBench Studio (for you only).
setlocal
set "APP=%~dp0psebench-studio.exe"
if not exist "%APP%" (
  echo psebench-studio.exe was not found next to this file. Keep this file in the PSEBench Studio folder.
  pause
  exit /b 1
)
powershell -NoProfile -NonInteractive -Command "$s = (New-Object -ComObject WScript.Shell).CreateShortcut([Environment]::GetFolderPath('Programs') + '\PSEBench Studio.lnk'); $s.TargetPath = $env:APP; $s.WorkingDirectory = Split-Path $env:APP; $s.IconLocation = (Join-Path (Split-Path $env:APP) 'icon.ico'); $s.Save()"
if errorlevel 1 (
  echo The Start-menu entry could not be made. You can still open psebench-studio.exe from this folder.
) else (
  echo PSEBench Studio is now in your Start menu.
)
pause
