@echo off
rem Removes the Start-menu entry "Add to Start menu.cmd" made. Your data in %APPDATA%\psebench is
rem kept; delete this folder to remove the program itself.
setlocal
powershell -NoProfile -NonInteractive -Command "$l = [Environment]::GetFolderPath('Programs') + '\PSEBench Studio.lnk'; if (Test-Path $l) { Remove-Item $l }"
echo The Start-menu entry is gone. Your data in %APPDATA%\psebench was kept.
echo To remove the program, delete this folder.
pause
